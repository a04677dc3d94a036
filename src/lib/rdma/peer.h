/* A peer: the RDMA device a connection runs on, as seen by this process,
 * with its protection domain and what it can do (on-demand paging for RC
 * reads and writes). Memory is registered with a peer. */
#ifndef RS_PEER_H
#define RS_PEER_H

#include <stdbool.h>

struct rs_conn;
struct rs_error;
struct rs_peer;

/* A peer for the device conn runs on. */
int rs_peer_new(const struct rs_conn *conn, struct rs_peer **peer,
		struct rs_error *err);
/* Another protection domain on like's device: what is registered on one
 * is reached through no queue pair of the other. */
int rs_peer_new_like(const struct rs_peer *like, struct rs_peer **peer,
		     struct rs_error *err);
/* Frees the peer with its protection domain: 0, or the errno of a
 * protection domain that cannot be freed yet (EBUSY: a region, a window
 * or a queue pair still on it), which leaves *peer as it was. */
int rs_peer_delete(struct rs_peer **peer);

/* True when this build and peer's device do IBTA 1.5's RDMA FLUSH to
 * persistence and ATOMIC WRITE; when not, *why_not (if given) says which
 * of the two lacks them. */
bool rs_peer_can_flush(const struct rs_peer *peer, const char **why_not);

/* True when conn runs on peer's device, so peer's memory serves it. */
bool rs_peer_serves(const struct rs_peer *peer, const struct rs_conn *conn);

#endif
