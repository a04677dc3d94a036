/* Whether a replica's receiver is still there while it owes us an answer:
 * a busy link or a busy receiver answers late, a gone one never. Once
 * nothing has come back for half the peer timeout while something is
 * unanswered, the link is probed (an RDMA WRITE of no bytes, which the
 * receiver's adapter acknowledges without its program: rs_conn_probe); a
 * probe that completes is an answer, however late, and the wait starts
 * over; one unanswered for the other half means the receiver's host, link
 * or queue pair is gone. Every completion that succeeds is word from the
 * receiver's side. Pure: replicas/replica.c feeds it. */
#ifndef SEND_LIVENESS_H
#define SEND_LIVENESS_H

#include <stdint.h>

struct send_liveness {
	uint64_t heard_ns; /* the last word: a reply, any completion */
	uint64_t probe_ns; /* a probe out since then, or 0 */
};

enum send_liveness_verdict {
	SEND_LIVE,  /* nothing to do */
	SEND_PROBE, /* silent for half the timeout: probe the link now */
	SEND_GONE,  /* the probe had the other half and no answer */
};

void send_liveness_start(struct send_liveness *l, uint64_t now_ns);
/* Word from the receiver's side (a probe's completion too). */
void send_liveness_heard(struct send_liveness *l, uint64_t now_ns);
/* A probe was posted now. */
void send_liveness_probed(struct send_liveness *l, uint64_t now_ns);
/* What to do at now_ns, with `waiting` the time the oldest thing we wait
 * for was sent (0: nothing). *silent_ns: how long nothing came back. */
enum send_liveness_verdict
send_liveness_check(const struct send_liveness *l, uint64_t waiting,
		    uint64_t now_ns, uint64_t timeout_ns, uint64_t *silent_ns);

#endif
