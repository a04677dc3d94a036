/* Connection requests held a moment for a log that is not open yet: the
 * logs asked for open before the others, and a pool opens in tens to
 * hundreds of ms, so the request is served the moment its log is open
 * rather than on the sender's next try (a refusal, a wait, a new connect:
 * issue 71). Held at most RECV_ANSWER_MS, the bound within which every
 * request is answered, then refused as "starting" with a hint of when to
 * ask again, as before. The list only keeps them: routing.c decides what
 * to do with one due. */
#ifndef RECV_SERVICE_HELD_H
#define RECV_SERVICE_HELD_H

#include "proto/descriptor.h"
#include "rdma/listener.h"

#include <stdbool.h>
#include <stdint.h>

/* At most this many held at once; more are refused at once. */
#define RECV_HELD_MAX 64

struct recv_held_request {
	struct recv_held_request *next;
	struct rs_listener_event ev; /* its connection owned by the list */
	struct rs_connect_req req;   /* as read from the request */
	uint64_t since_ns;	     /* when it was held */
};

struct recv_held {
	struct recv_held_request *first; /* oldest first */
	unsigned count;
};

/* Whether the log of that name is still to open (ctx: the caller's). */
typedef bool (*recv_held_opening_fn)(const void *ctx, const char *name);

/* Holds the request; false when RECV_HELD_MAX are held already or memory
 * is short (the caller refuses it then, as before). */
bool recv_held_add(struct recv_held *h, const struct rs_listener_event *ev,
		   const struct rs_connect_req *req, uint64_t now_ns);

/* Takes out the oldest request that is due, its log open (or failed) or
 * its time up; the caller owns it (free it). NULL: none is due. */
struct recv_held_request *recv_held_take_due(struct recv_held *h,
					     recv_held_opening_fn opening,
					     const void *ctx, uint64_t now_ns);

/* Closes every held request's connection (the service stops). */
void recv_held_drop_all(struct recv_held *h);

#endif
