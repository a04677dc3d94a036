/* Adaptive completion waiting: spin on a completion queue while the next
 * completion is due soon, sleep on the completion channel otherwise. A
 * process wake-up costs several microseconds on hardware and far more on a
 * software device, often more than the round trip it waits for; spinning
 * through a long wait costs a core for nothing. So the policy learns how
 * long recent waits were (a moving average) and spins for up to twice that,
 * only while that average is short (RS_SPIN_CAP_NS). An idle connection is
 * never spun on: the caller only asks while it expects a completion. Pure
 * logic, no verbs. */
#ifndef RS_SPIN_H
#define RS_SPIN_H

#include <stdint.h>

/* Waits longer than this on average are slept through. */
#define RS_SPIN_CAP_NS 1000000ull

struct rs_spin {
	uint64_t avg_ns; /* moving average of recent waits; 0: none yet */
};

/* A wait for a completion took waited_ns (from what it waited after to the
 * completion). */
void rs_spin_observe(struct rs_spin *s, uint64_t waited_ns);

/* Until when to spin for a completion awaited since since_ns: a time on the
 * same clock, or 0 to sleep at once. */
uint64_t rs_spin_until(const struct rs_spin *s, uint64_t since_ns);

#endif
