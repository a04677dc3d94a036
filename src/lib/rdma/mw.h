/* Memory windows (type 2): remote access to a part of a registered region,
 * bound to one queue pair by a work request posted on it. A window's key
 * works on that queue pair only, and changes with every binding: binding
 * it again moves the access (the old key stops working), binding it to
 * nothing revokes it. The region must be registered with RS_MR_BIND and
 * needs no remote access of its own, so that no key but a window's reaches
 * it. */
#ifndef RS_MW_H
#define RS_MW_H

#include "proto/descriptor.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_conn;
struct rs_error;
struct rs_mr;
struct rs_mw;
struct rs_peer;

/* Whether the peer's device binds type-2 windows. */
bool rs_peer_has_windows(const struct rs_peer *peer);
/* Whether it also keeps a window's accesses inside the window's range.
 * Soft-RoCE (rxe, Linux 6.1 at least) does not: it checks a window's key,
 * queue pair, access and state, then the range of the region under it
 * only, so a window's key reaches that whole region. */
bool rs_peer_windows_bounded(const struct rs_peer *peer);

/* What one RDMA device of this host does with memory windows. */
struct rs_window_support {
	char device[64];
	bool binds;   /* rs_peer_has_windows */
	bool bounded; /* rs_peer_windows_bounded */
};
/* Fills out with up to max devices; returns how many there are (0 when
 * none, or the device list cannot be read). */
int rs_windows_survey(struct rs_window_support *out, int max);

/* A window on peer's protection domain, bound to nothing. */
int rs_mw_new(struct rs_peer *peer, struct rs_mw **mw, struct rs_error *err);
void rs_mw_delete(struct rs_mw **mw);

/* Posts, on c's queue pair, the binding of mw to [offset, +length) of mr
 * for access (RS_MR_REMOTE_WRITE, RS_MR_REMOTE_READ, RS_MR_FLUSH where the
 * build has it), invalidating
 * its binding before, if any, first. The work requests posted after it on
 * c see it done. flags: RS_POST_SIGNALED, RS_POST_MORE (held back to go
 * with c's next post, one doorbell for both). From now on rs_mw_describe
 * gives the new key. 0 or RS_E_LOST. */
int rs_mw_bind(struct rs_conn *c, struct rs_mw *mw, const struct rs_mr *mr,
	       size_t offset, size_t length, unsigned access, uint64_t wr_id,
	       unsigned flags);

/* rs_mw_bind, signaled, and waits up to timeout_ms for it to be done:
 * for a queue pair made ready and not answered yet (rdma/conn.h,
 * rs_conn_ready), whose peer must find the window bound from its first
 * request on, or one whose peer waits for the key. c's sends are quiet
 * (rs_conn_quiet_sends): their completion queue holds nothing else that
 * is awaited. 0, or a negative rs_errc with the reason in err. */
int rs_mw_bind_now(struct rs_conn *c, struct rs_mw *mw, const struct rs_mr *mr,
		   size_t offset, size_t length, unsigned access,
		   int timeout_ms, struct rs_error *err);

/* Posts the invalidation of mw's binding: its key reaches nothing. */
int rs_mw_revoke(struct rs_conn *c, struct rs_mw *mw, uint64_t wr_id,
		 unsigned flags);

/* The window as its last binding made it, for the remote peer. */
struct rs_mr_desc rs_mw_describe(const struct rs_mw *mw, uint8_t usage);

#endif
