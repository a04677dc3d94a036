#include "log/seats.h"

enum recv_seat_claim recv_seats_claim(atomic_uint *taken, unsigned max,
				      bool takes_over_held)
{
	if (takes_over_held)
		return RECV_SEAT_PASSED;
	unsigned n = atomic_load(taken);
	while (n < max)
		if (atomic_compare_exchange_weak(taken, &n, n + 1))
			return RECV_SEAT_TAKEN;
	return RECV_SEAT_NONE;
}

void recv_seat_hold(struct recv_seat *s, enum recv_seat_claim claim)
{
	s->held = claim == RECV_SEAT_TAKEN;
}

void recv_seat_take(atomic_uint *taken, struct recv_seat *s)
{
	if (s->held)
		return;
	atomic_fetch_add(taken, 1);
	s->held = true;
}

void recv_seat_pass(atomic_uint *taken, struct recv_seat *from,
		    struct recv_seat *to)
{
	if (!to->held && from->held) {
		from->held = false;
		to->held = true;
		return;
	}
	recv_seat_take(taken, to);
}

bool recv_seat_release(atomic_uint *taken, struct recv_seat *s)
{
	if (!s->held)
		return false;
	atomic_fetch_sub(taken, 1);
	s->held = false;
	return true;
}
