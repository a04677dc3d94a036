/* How long a program's own loop could not run: it woke later than it
 * asked to (beyond a slack), as on a host short of CPU (a long stretch of
 * its own work is not counted: streaming fast looks the same as not being
 * scheduled). Such time does not count as a peer's silence: rpma-send
 * does not judge a receiver slow or gone over time it did not get to look
 * (replicas/liveness.h), nor rpma-recv a sender's link over time its log's
 * thread could not run (sender/session.h): where both ends starve on one
 * host (and Soft-RoCE's work with them), a slow peer is not a hung one.
 * Kept as the total so far and its recent history, so that the stall
 * within any recent interval can be told. Pure. */
#ifndef RS_STALL_H
#define RS_STALL_H

#include <stdint.h>

/* Lateness counted from this much on (a loop's own work, a wake-up). */
#define RS_STALL_SLACK_NS (50ull * 1000000ull)
#define RS_STALL_HISTORY 256

struct rs_stall {
	uint64_t total_ns;
	uint64_t asked_ns; /* how long it asked to wait, at most */
	uint64_t since_ns; /* when it began that wait */
	/* When the total grew, by how much, oldest first (an interval that
	 * began before the oldest counts from it: less stall, not more). */
	struct rs_stall_step {
		uint64_t at_ns, ns;
	} steps[RS_STALL_HISTORY];
	unsigned nsteps;
};

/* The loop is about to wait up to wait_ns from now. */
void rs_stall_waits(struct rs_stall *s, uint64_t now_ns, uint64_t wait_ns);
/* The loop runs again (its wait is over) at now. */
void rs_stall_woke(struct rs_stall *s, uint64_t now_ns);
/* How much of [from, now] the loop could not run. */
uint64_t rs_stall_since(const struct rs_stall *s, uint64_t from_ns);

#endif
