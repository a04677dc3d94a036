/* Whether a replica's receiver is still there while it owes us an answer:
 * a busy link or a busy receiver answers late, a gone one never. Once
 * nothing has come back for half the peer timeout while something is
 * unanswered, the link is probed (an RDMA WRITE of no bytes, which the
 * receiver's adapter acknowledges without its program: rs_conn_probe); a
 * probe that completes is an answer, however late, and the wait starts
 * over; one unanswered for the other half means the receiver's host, link
 * or queue pair is gone. Every completion that succeeds is word from the
 * receiver's side. But a probe's answer says only that everything sent
 * before it reached the receiver's adapter: a program that then says
 * nothing for twice the peer timeout is not serving (hung, stopped),
 * however well its adapter answers. That is measured from the first probe
 * to come back that was sent after what is awaited, and later returns do
 * not move it (an idle link's keepalives come back all the time). A
 * program that has been slow lately (a PMem host short of CPU: its
 * answers took longer than the peer timeout) gets twice its slowest recent
 * answer before it is judged hung, up to 2.5 peer timeouts (so a hung one
 * is found within three of the request): slow, not hung. Pure:
 * replicas/replica.c feeds it. */
#ifndef SEND_LIVENESS_H
#define SEND_LIVENESS_H

#include "cli/stall.h"

#include <stdbool.h>
#include <stdint.h>

/* Probe returns kept: more than come back in twice the peer timeout
 * (one each half timeout of silence at most, or a keepalive's). */
#define SEND_LIVENESS_BACKS 8
/* Answers whose time is kept: the slowest of them counts. */
#define SEND_LIVENESS_TOOK 8

struct send_liveness {
	uint64_t heard_ns;    /* the last word: a reply, any completion */
	uint64_t probe_ns;    /* a probe out since then, or 0 */
	uint64_t answered_ns; /* the program's last message */
	/* The latest probes to come back since the program's last message,
	 * oldest first: when each was sent (what was sent before it had
	 * reached the receiver's adapter when it came back) and came back. */
	struct send_liveness_probe {
		uint64_t back_ns, sent_ns;
	} backs[SEND_LIVENESS_BACKS];
	unsigned nbacks;
	/* How long the program's latest answers took, a ring. */
	uint64_t took[SEND_LIVENESS_TOOK];
	unsigned ntook;
};

enum send_liveness_verdict {
	SEND_LIVE,  /* nothing to do */
	SEND_PROBE, /* silent for half the timeout: probe the link now */
	SEND_GONE,  /* the probe had the other half and no answer */
	SEND_HUNG,  /* its adapter answers, its program has not for twice
		       the timeout since what we wait for reached it */
};

void send_liveness_start(struct send_liveness *l, uint64_t now_ns);
/* Word from the receiver's side (a probe's completion too). */
void send_liveness_heard(struct send_liveness *l, uint64_t now_ns);
/* A message from the receiver's program (a reply). */
void send_liveness_answered(struct send_liveness *l, uint64_t now_ns);
/* ... that answered what was waited for since waiting (0: unknown). */
void send_liveness_answered_after(struct send_liveness *l, uint64_t now_ns,
				  uint64_t waiting);
/* A probe was posted now. */
void send_liveness_probed(struct send_liveness *l, uint64_t now_ns);
/* The probe out came back (its completion; send_liveness_heard too). */
void send_liveness_probe_back(struct send_liveness *l, uint64_t now_ns);
/* What to do at now_ns, with `waiting` the time the oldest thing we wait
 * for was sent (0: nothing). *silent_ns: how long nothing came back. Time
 * this sender could not run (stall; NULL: none kept) does not count. */
enum send_liveness_verdict
send_liveness_check(const struct send_liveness *l, uint64_t waiting,
		    uint64_t now_ns, uint64_t timeout_ns,
		    const struct rs_stall *stall, uint64_t *silent_ns);

#endif
