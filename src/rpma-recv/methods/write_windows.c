#include "methods/write_windows.h"

#include "error.h"
#include "rdma/conn.h"
#include "rdma/mr.h"
#include "rdma/mw.h"

#include <errno.h>
#include <stdlib.h>

/* Work requests of the bindings: unsignaled, their entries reclaimed by
 * the next signaled reply; a failure ends the session as any does. A
 * binding is held back for the reply that hands its key out: one doorbell
 * (a system call on Soft-RoCE) for both. */
#define WINDOW_WR_ID UINT64_MAX

struct recv_write_windows {
	struct rs_mw *mw[2];
	unsigned newest; /* which of mw holds the newest key */
	struct recv_window_regions r;
};

int recv_write_windows_new(struct rs_peer *peer,
			   const struct recv_window_regions *regions,
			   struct recv_write_windows **out,
			   struct rs_error *err)
{
	struct recv_write_windows *w = calloc(1, sizeof(*w));
	if (!w)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	w->r = *regions;
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
	rs_mw_delete(&w->mw[0]);
	rs_mw_delete(&w->mw[1]);
	free(w);
	*wp = 0;
}

/* The last region that begins at or before head. */
static unsigned region_of(const struct recv_window_regions *r, uint64_t head)
{
	uint64_t j = r->step ? (head - r->start) / r->step : 0;
	return j < r->n ? (unsigned)j : r->n - 1;
}

int recv_write_windows_move(struct recv_write_windows *w, struct rs_conn *c,
			    uint64_t head, uint32_t *key, uint64_t *reach)
{
	const struct recv_window_regions *r = &w->r;
	if (head < r->start || head > r->end)
		return RS_E_INVAL;
	unsigned other = w->newest ^ 1u, j = region_of(r, head);
	uint64_t from = r->start + (uint64_t)j * r->step;
	/* An empty tail (a full pool) is a window of no bytes: invalidated,
	 * no key reaches anything. */
	int rc = head == r->end
		     ? rs_mw_revoke(c, w->mw[other], WINDOW_WR_ID, 0)
		     : rs_mw_bind(c, w->mw[other], r->mr[j], head - from,
				  r->end - head, RS_MR_REMOTE_WRITE,
				  WINDOW_WR_ID, RS_POST_MORE);
	if (rc)
		return rc;
	w->newest = other;
	*key = rs_mw_describe(w->mw[other], 0).rkey;
	*reach = r->n > 1 ? from : head;
	return 0;
}

int recv_write_windows_reset(struct recv_write_windows *w, struct rs_conn *c,
			     uint64_t head, uint32_t *key, uint64_t *reach)
{
	int rc = recv_write_windows_move(w, c, head, key, reach);
	if (!rc)
		rc = rs_mw_revoke(c, w->mw[w->newest ^ 1u], WINDOW_WR_ID, 0);
	return rc;
}
