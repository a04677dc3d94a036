/* When each step of one sender's session happened on the receiver, and
 * the line that says where its time went (rpma-recv -v, at the session's
 * end), the receiver's half of rpma-send --stats' phases: its request
 * queued for the log's thread, the session set up (queue pair, keys,
 * grant), the connection up, the first commit, streaming to the last,
 * quiet to the end, and the teardown (windows, queue pair, a one-sided
 * writer's keys). Pure: the caller reads the clock. */
#ifndef RECV_SESSION_TIMES_H
#define RECV_SESSION_TIMES_H

#include <stddef.h>
#include <stdint.h>

struct recv_session_times {
	uint64_t asked_ns;	 /* its request handed to the log's thread */
	uint64_t admitted_ns;	 /* the log's thread took it up */
	uint64_t answered_ns;	 /* accepted: the grant on its way */
	uint64_t established_ns; /* the connection up (or its first word) */
	uint64_t first_commit_ns;
	uint64_t last_commit_ns;
	uint64_t ended_ns; /* the session over: its teardown begins */
	uint64_t freed_ns; /* its windows, queue pair and keys gone */
};

/* A commit applied (or, for a writer that commits alone, seen) at now. */
void recv_session_times_commit(struct recv_session_times *t, uint64_t now_ns);

/* "phases_ms queued=Q setup=S to_established=E to_first_commit=F
 * streaming=C to_end=N teardown=T", each from the end of the step before
 * that happened ("-" for a step that did not), into buf. */
void recv_session_times_format(const struct recv_session_times *t, char *buf,
			       size_t len);

#endif
