#include "write_windows.h"

#include "error.h"
#include "rdma/mr.h"
#include "rdma/mw.h"

#include <errno.h>
#include <stdlib.h>

/* Work requests of the bindings: unsignaled, their entries reclaimed by
 * the next signaled reply; a failure ends the session as any does. */
#define WINDOW_WR_ID UINT64_MAX

struct recv_write_windows {
	struct rs_mw *mw[2];
	unsigned newest; /* which of mw holds the newest key */
	const struct rs_mr *data_mr;
	uint64_t start, end;
};

int recv_write_windows_new(struct rs_peer *peer, const struct rs_mr *data_mr,
			   uint64_t start, uint64_t end,
			   struct recv_write_windows **out,
			   struct rs_error *err)
{
	struct recv_write_windows *w = calloc(1, sizeof(*w));
	if (!w)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	w->data_mr = data_mr;
	w->start = start;
	w->end = end;
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

int recv_write_windows_move(struct recv_write_windows *w, struct rs_conn *c,
			    uint64_t head, uint32_t *key)
{
	if (head < w->start || head > w->end)
		return RS_E_INVAL;
	unsigned other = w->newest ^ 1u;
	/* An empty tail (a full pool) is a window of no bytes: invalidated,
	 * no key reaches anything. */
	int rc = head == w->end
		     ? rs_mw_revoke(c, w->mw[other], WINDOW_WR_ID, 0)
		     : rs_mw_bind(c, w->mw[other], w->data_mr, head - w->start,
				  w->end - head, RS_MR_REMOTE_WRITE,
				  WINDOW_WR_ID, 0);
	if (rc)
		return rc;
	w->newest = other;
	*key = rs_mw_describe(w->mw[other], 0).rkey;
	return 0;
}

int recv_write_windows_reset(struct recv_write_windows *w, struct rs_conn *c,
			     uint64_t head, uint32_t *key)
{
	int rc = recv_write_windows_move(w, c, head, key);
	if (!rc)
		rc = rs_mw_revoke(c, w->mw[w->newest ^ 1u], WINDOW_WR_ID, 0);
	return rc;
}
