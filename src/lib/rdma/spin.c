#include "spin.h"

/* One long wait (an idle input, a stall) counts as at most this much, so
 * the average is short again a few waits after the traffic is. */
#define RS_SPIN_OBSERVE_MAX_NS (4 * RS_SPIN_CAP_NS)

void rs_spin_observe(struct rs_spin *s, uint64_t waited_ns)
{
	if (waited_ns > RS_SPIN_OBSERVE_MAX_NS)
		waited_ns = RS_SPIN_OBSERVE_MAX_NS;
	if (s->avg_ns == 0)
		s->avg_ns = waited_ns ? waited_ns : 1;
	else /* a quarter of the new wait: adapts within a few */
		s->avg_ns = s->avg_ns - s->avg_ns / 4 + waited_ns / 4;
}

uint64_t rs_spin_until(const struct rs_spin *s, uint64_t since_ns)
{
	if (s->avg_ns == 0 || s->avg_ns > RS_SPIN_CAP_NS)
		return 0;
	return since_ns + 2 * s->avg_ns;
}
