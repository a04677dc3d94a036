/* How long this sender itself could not run: its loop woke later than it
 * asked to (beyond a slack), as on an application host short of CPU (a
 * long stretch of its own work is not counted: streaming fast looks the
 * same as not being scheduled). Such time does not
 * count as a receiver's silence (replicas/liveness.h): a receiver is not
 * judged slow or gone over time its sender did not get to look, and where
 * both ends starve on one host, a slow receiver is not a hung one. Kept as
 * the total so far and its recent history, so that the stall within any
 * recent interval can be told. Pure. */
#ifndef SEND_STALL_H
#define SEND_STALL_H

#include <stdint.h>

/* Lateness counted from this much on (a loop's own work, a wake-up). */
#define SEND_STALL_SLACK_NS (50ull * 1000000ull)
#define SEND_STALL_HISTORY 256

struct send_stall {
	uint64_t total_ns;
	uint64_t asked_ns; /* how long it asked to wait, at most */
	uint64_t since_ns; /* when it began that wait */
	/* When the total grew, by how much, oldest first (an interval that
	 * began before the oldest counts from it: less stall, not more). */
	struct send_stall_step {
		uint64_t at_ns, ns;
	} steps[SEND_STALL_HISTORY];
	unsigned nsteps;
};

/* The loop is about to wait up to wait_ns from now. */
void send_stall_waits(struct send_stall *s, uint64_t now_ns, uint64_t wait_ns);
/* The loop runs again (its wait is over) at now. */
void send_stall_woke(struct send_stall *s, uint64_t now_ns);
/* How much of [from, now] the sender could not run. */
uint64_t send_stall_since(const struct send_stall *s, uint64_t from_ns);

#endif
