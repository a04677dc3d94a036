/* The fleet's state, shared by the two files that implement it:
 * replicas/fleet.c (start and end) and, below it, replicas/fleet_events.c
 * (streaming), which calls nothing of replicas/fleet.c. Nothing else includes
 * this. */
#ifndef SEND_FLEET_INTERNAL_H
#define SEND_FLEET_INTERNAL_H

#include "connect/backoff.h"
#include "connect/hint.h"
#include "replicas/fleet.h"
#include "replicas/replica.h"

#define FLEET_RECONNECT_WAIT_MS 1000 /* an attempt, while others stream */

/* A lost replica's reconnect clock (--retry): attempts made, the next. */
struct fleet_retry {
	unsigned attempts;
	unsigned backoff_ms;
	uint64_t at_ns;
	struct send_hint_wait hinted; /* the receiver's "ask again in" */
};

struct fleet {
	const struct ship_config *cfg;
	unsigned n;
	struct replica *replicas[SEND_REPLICAS_MAX];
	struct fleet_retry retry[SEND_REPLICAS_MAX];
	struct send_window *w;
	int failure; /* why the last replica given up was: an rs_errc */
	struct rs_stall stall; /* the time its loop could not run */
};

/* r's link is gone (replicas/fleet_events.c): reconnected with --retry, else
 * given up (the stream goes on while the quorum holds). */
void fleet_lose(struct fleet *f, struct replica *r, uint64_t now);

#endif
