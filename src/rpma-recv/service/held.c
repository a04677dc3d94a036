/* The requests held for a log not open yet (service/held.h). */
#include "service/held.h"

#include "log/config.h"
#include "rdma/conn.h"

#include <stdlib.h>

bool recv_held_add(struct recv_held *h, const struct rs_listener_event *ev,
		   const struct rs_connect_req *req, uint64_t now_ns)
{
	if (h->count >= RECV_HELD_MAX)
		return false;
	struct recv_held_request *r = calloc(1, sizeof(*r));
	if (!r)
		return false;
	r->ev = *ev;
	r->req = *req;
	r->since_ns = now_ns;
	struct recv_held_request **tail = &h->first;
	while (*tail)
		tail = &(*tail)->next;
	*tail = r;
	h->count++;
	return true;
}

static bool due(const struct recv_held_request *r, recv_held_opening_fn opening,
		const void *ctx, uint64_t now_ns)
{
	uint64_t held_ns = now_ns > r->since_ns ? now_ns - r->since_ns : 0;
	return held_ns >= (uint64_t)RECV_ANSWER_MS * 1000000ull ||
	       !opening(ctx, r->req.log_name);
}

struct recv_held_request *recv_held_take_due(struct recv_held *h,
					     recv_held_opening_fn opening,
					     const void *ctx, uint64_t now_ns)
{
	for (struct recv_held_request **at = &h->first; *at;
	     at = &(*at)->next) {
		struct recv_held_request *r = *at;
		if (due(r, opening, ctx, now_ns)) {
			*at = r->next;
			r->next = NULL;
			h->count--;
			return r;
		}
	}
	return NULL;
}

void recv_held_drop_all(struct recv_held *h)
{
	while (h->first) {
		struct recv_held_request *r = h->first;
		h->first = r->next;
		rs_conn_delete(&r->ev.conn);
		free(r);
	}
	h->count = 0;
}
