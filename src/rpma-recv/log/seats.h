/* The seats max-senders counts, over all logs: one per sender handed to a
 * log's thread and not yet ended, reader or writer. A request takes one
 * when there is one free; a writer's request to take its own session over,
 * with the token the log's writer holds now (log/held_token.h), takes
 * none: the old session's seat passes to it when it takes the session over
 * (the old one stops counting at once), or it takes one of its own then if
 * the old session ended first. A seat is given back when its session ends
 * or its request is refused, never twice. Pure counting on one atomic
 * shared by the service's thread and the logs' threads. */
#ifndef RECV_SEATS_H
#define RECV_SEATS_H

#include <stdatomic.h>
#include <stdbool.h>

/* What a request gets at routing. */
enum recv_seat_claim {
	RECV_SEAT_TAKEN,  /* a seat of its own */
	RECV_SEAT_PASSED, /* the session it takes over's, later */
	RECV_SEAT_NONE,	  /* every seat taken: refused */
};

/* takes_over_held: a writer taking over with the token its log's writer
 * holds now. */
enum recv_seat_claim recv_seats_claim(atomic_uint *taken, unsigned max,
				      bool takes_over_held);

/* One session's (or waiting request's) hold on a seat. */
struct recv_seat {
	bool held;
};

/* A seat taken at routing (RECV_SEAT_TAKEN) is held from then on. */
void recv_seat_hold(struct recv_seat *s, enum recv_seat_claim claim);
/* The session `to` takes over `from`: from's seat passes to it when it
 * holds none; else it takes one now, over the cap if need be (its
 * request's claim was good when it was made). */
void recv_seat_pass(atomic_uint *taken, struct recv_seat *from,
		    struct recv_seat *to);
/* A session with no seat that needs one (its claim passed, and the
 * session it was to take over is gone): one now. */
void recv_seat_take(atomic_uint *taken, struct recv_seat *s);
/* Gives the seat back, if held. True if it was. */
bool recv_seat_release(atomic_uint *taken, struct recv_seat *s);

#endif
