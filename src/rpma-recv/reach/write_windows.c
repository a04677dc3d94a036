#include "reach/write_windows.h"

#include "error.h"
#include "rdma/conn.h"
#include "rdma/mr.h"
#include "rdma/mw.h"
#include "reach/write_reach.h"

#include <errno.h>
#include <stdlib.h>

/* Work requests of the bindings: unsignaled, their entries reclaimed by
 * the next signaled reply; a failure ends the session as any does. A
 * binding is held back for the reply that hands its key out: one doorbell
 * (a system call on Soft-RoCE) for both. */
#define WINDOW_WR_ID UINT64_MAX

/* The two windows' regions, and those a window left whose deregistration
 * waits for the unbinding to run. */
#define REACH_REGIONS_MAX 4
#define NO_REGION (-1)

struct reach_region {
	struct rs_mr *mr; /* NULL: a free slot */
	uint64_t from, to;
};

struct recv_write_windows {
	struct rs_peer *peer;
	struct recv_write_windows_config cfg;
	struct recv_write_reach plan;
	struct rs_mw *mw[2];
	int region_of[2]; /* each window's region, NO_REGION: unbound */
	unsigned newest;  /* which of mw holds the newest key */
	struct reach_region regions[REACH_REGIONS_MAX];
};

int recv_write_windows_new(struct rs_peer *peer,
			   const struct recv_write_windows_config *cfg,
			   struct recv_write_windows **out,
			   struct rs_error *err)
{
	struct recv_write_windows *w = calloc(1, sizeof(*w));
	if (!w)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	w->peer = peer;
	w->cfg = *cfg;
	w->plan = recv_write_reach_init(cfg->start, cfg->end, cfg->credits);
	w->region_of[0] = w->region_of[1] = NO_REGION;
	int rc = rs_mw_new(peer, &w->mw[0], err);
	if (!rc)
		rc = rs_mw_new(peer, &w->mw[1], err);
	if (rc) {
		recv_write_windows_delete(&w);
		return rc;
	}
	*out = w;
	return 0;
}

void recv_write_windows_delete(struct recv_write_windows **wp)
{
	struct recv_write_windows *w = *wp;
	if (!w)
		return;
	/* Windows first: a region a window is bound to cannot go. */
	rs_mw_delete(&w->mw[0]);
	rs_mw_delete(&w->mw[1]);
	for (unsigned j = 0; j < REACH_REGIONS_MAX; j++)
		rs_mr_dereg(&w->regions[j].mr);
	free(w);
	*wp = 0;
}

static bool in_use(const struct recv_write_windows *w, unsigned j)
{
	return w->region_of[0] == (int)j || w->region_of[1] == (int)j;
}

/* Regions no window is bound to any more: their rebinding went out with a
 * reply the writer has answered since, so the device let them go. One it
 * still holds waits for the next move. */
static void reap(struct recv_write_windows *w)
{
	for (unsigned j = 0; j < REACH_REGIONS_MAX; j++)
		if (w->regions[j].mr && !in_use(w, j))
			(void)rs_mr_try_dereg(&w->regions[j].mr);
}

/* Registers the region the plan gives for a window from head in a free
 * slot: its index in *j. */
static int register_region(struct recv_write_windows *w, uint64_t head,
			   uint64_t need, int *j, struct rs_error *err)
{
	unsigned free_slot = REACH_REGIONS_MAX;
	for (unsigned k = 0; k < REACH_REGIONS_MAX; k++)
		if (!w->regions[k].mr && !in_use(w, k))
			free_slot = k;
	if (free_slot == REACH_REGIONS_MAX)
		return rs_error_set(err, RS_E_NOMEM, EBUSY,
				    "the device still holds the windows' "
				    "older regions");
	struct reach_region *r = &w->regions[free_slot];
	recv_write_reach_region(&w->plan, head, need, &r->from, &r->to);
	struct rs_error why = {0};
	if (rs_mr_reg(w->peer, w->cfg.base + r->from, r->to - r->from,
		      RS_MR_BIND, &r->mr, &why))
		return rs_error_set(err, why.code, why.sys_errno,
				    "cannot register %llu bytes of the log's "
				    "tail for its writer's windows: %s",
				    (unsigned long long)(r->to - r->from),
				    why.msg);
	*j = (int)free_slot;
	return 0;
}

/* The region a window from head binds to: the newest window's if it still
 * serves, else one registered further on. Where that fails the newest
 * serves while it holds the head (the writer asks for room when it has
 * none, and that request fails). */
static int region_for(struct recv_write_windows *w, uint64_t head,
		      uint64_t need, int *j, struct rs_error *err)
{
	int n = w->region_of[w->newest];
	const struct reach_region *r = n == NO_REGION ? 0 : &w->regions[n];
	if (r &&
	    recv_write_reach_serves(&w->plan, r->from, r->to, head, need)) {
		*j = n;
		return 0;
	}
	int rc = register_region(w, head, need, j, err);
	if (rc && r && head >= r->from && head < r->to && need == 0) {
		*j = n;
		return 0;
	}
	return rc;
}

int recv_write_windows_move(struct recv_write_windows *w, struct rs_conn *c,
			    uint64_t head, uint64_t need,
			    struct recv_window_binding *b, struct rs_error *err)
{
	if (head < w->cfg.start || head > w->cfg.end)
		return rs_error_set(err, RS_E_INVAL, EINVAL,
				    "the head is outside the log");
	reap(w);
	recv_write_reach_note(&w->plan, need);
	unsigned other = w->newest ^ 1u;
	int j = NO_REGION, rc;
	/* An empty tail (a full pool) is a window of no bytes: invalidated,
	 * no key reaches anything. */
	if (head == w->cfg.end) {
		rc = rs_mw_revoke(c, w->mw[other], WINDOW_WR_ID, 0);
	} else {
		rc = region_for(w, head, need, &j, err);
		const struct reach_region *r = rc ? 0 : &w->regions[j];
		if (r)
			rc = rs_mw_bind(c, w->mw[other], r->mr, head - r->from,
					r->to - head, RS_MR_REMOTE_WRITE,
					WINDOW_WR_ID, RS_POST_MORE);
	}
	if (rc)
		return rc;
	w->region_of[other] = j;
	w->newest = other;
	const struct reach_region *r = j == NO_REGION ? 0 : &w->regions[j];
	b->key = rs_mw_describe(w->mw[other], 0).rkey;
	b->reach = r && !w->cfg.bounded ? r->from : head;
	b->end = r ? r->to : head;
	return 0;
}

int recv_write_windows_reset(struct recv_write_windows *w, struct rs_conn *c,
			     uint64_t head, uint64_t need,
			     struct recv_window_binding *b,
			     struct rs_error *err)
{
	int rc = recv_write_windows_move(w, c, head, need, b, err);
	if (rc)
		return rc;
	unsigned old = w->newest ^ 1u;
	rc = rs_mw_revoke(c, w->mw[old], WINDOW_WR_ID, 0);
	if (!rc)
		w->region_of[old] = NO_REGION;
	return rc;
}
