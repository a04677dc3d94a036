/* Admitting senders to one log: who may write now (one holder, or its own
 * sender taking over), seats, tokens and refusals, setting up each
 * accepted session with its grant, and ending sessions. What memory each
 * is shown on the RDMA device it comes in on is reach/memory.h's, called
 * from here only. This module owns a log's sessions; the log's loop
 * (log/worker.c) feeds them their events. */
#ifndef RECV_LOG_ADMISSION_H
#define RECV_LOG_ADMISSION_H

#include "log/config.h"
#include "log/held_token.h"
#include "log/inbox.h"
#include "log/seats.h"
#include "metrics/counters.h"
#include "pool/pmem_target.h"
#include "reach/memory.h"
#include "rotation/generation.h"
#include "sender/session.h"

struct rs_stall;

#include <stdbool.h>

#define RECV_LOG_SESSIONS_MAX 64 /* connections of one log at once */

struct recv_admission;

/* A connected sender: its connection and the session on top. */
struct recv_sender {
	struct recv_sender *next;
	struct rs_session *rs;
	struct recv_session s;
	struct rs_connect_req req;
	struct recv_log_rules rules;   /* as of its request */
	struct rs_session_token token; /* handed out with its grant */
	bool granted;		       /* its token is one (zero before) */
	struct recv_sender_memory mem; /* what it is shown and holds */
	bool taken_over;       /* its sender came back on a new connection */
	struct recv_seat seat; /* under max-senders (log/seats.h) */
	uint64_t asked_ns;     /* when its request was handed over */
	struct recv_admission *adm;
};

/* A log's senders and what the device they come in on was given. */
struct recv_admission {
	const struct recv_worker_config *cfg;
	struct recv_counters *counters;		/* the service's */
	struct recv_log_counters *log_counters; /* this log's */
	struct recv_pmem_target *target;
	struct recv_rotation *rotation; /* its positions and archive */
	struct recv_generation gen;	/* the writer's replacement */
	struct recv_log_memory mem;	/* what the log shows its senders */
	struct recv_sender *sessions;	/* every connected sender */
	unsigned nsessions;
	struct recv_sender *holder;   /* the writer; NULL when none */
	struct recv_held_token *held; /* its token, for the service to see */
	/* Where the log's thread waits: each session's descriptors are in
	 * this epoll set (data.ptr watch_owner) while it lives; -1: none. */
	int watch_epfd;
	void *watch_owner;
	const struct rs_stall *stall; /* of that thread (cli/stall.h) */
	bool finishing;		      /* ending every session for good */
};

void recv_admission_init(struct recv_admission *adm,
			 const struct recv_worker_config *cfg,
			 struct recv_counters *counters,
			 struct recv_log_counters *log_counters,
			 struct recv_pmem_target *target,
			 struct recv_rotation *rotation,
			 struct recv_held_token *held);
/* Ends every session and gives back what the device was given. */
void recv_admission_fini(struct recv_admission *adm);

/* Each session's descriptors go into epfd from now on, with owner. */
void recv_admission_watch(struct recv_admission *adm, int epfd, void *owner,
			  const struct rs_stall *stall);

/* A connection the service handed over: admitted or refused. */
void recv_admission_admit(struct recv_admission *adm, struct recv_handover *h);
/* Refuses a connection the service handed over, with a hint of when to
 * ask again (0: none). */
void recv_admission_refuse(struct recv_admission *adm, struct recv_handover *h,
			   uint8_t reason, uint16_t retry_ms);
/* True when a reader waits for the log to grow while its writer commits
 * alone (apm, flush): the receiver hears of no commit, so the log's loop
 * looks at the write offset often (its view is stale by that much). */
bool recv_admission_watching_head(const struct recv_admission *adm);
/* How often its timers must run: busy_ms while anything may fall due soon
 * (a handshake, a refusal, a reader's wait), else an eighth of the peer
 * timeout (at most RECV_QUIET_TIMER_MS): serving writers only need their
 * probes, a log without sessions nothing. A writer that commits alone (apm,
 * flush) is counted from the write offset at that pace too, so the counts
 * of its commits (metrics, status line) lag by up to that; a waiting reader
 * has its own pace. With a thousand idle logs, the sweeps were most of an
 * idle receiver's CPU; with one streaming flush writer, the 200 ms sweeps
 * were all of it. */
#define RECV_QUIET_TIMER_MS 1000
unsigned recv_admission_timer_ms(const struct recv_admission *adm,
				 unsigned busy_ms);
/* True when --busy-poll has a session to spin for: one that sends messages
 * (a gpspm or staged writer, a reader), not an apm or flush writer. */
bool recv_admission_spins(const struct recv_admission *adm);

/* Whether a writer waits for its rebase to be over (sender/session.h). */
bool recv_admission_rebasing(const struct recv_admission *adm);
/* The pool went back (it started over, a replacement switched in, the log
 * emptied): every reader's key to what it held before ends now. The
 * sessions call it before their writer hears of it; the log's thread after
 * a rebase whose writer is gone. */
void recv_admission_pool_rewound(struct recv_admission *adm);

/* Ends a session: its queue pair is destroyed when this returns. */
void recv_admission_end(struct recv_admission *adm, struct recv_sender *a);

#endif
