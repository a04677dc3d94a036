/* Whether the address a receiver listens on is one of this host's, looked
 * at without an RDMA device (for --check-config): the name resolves, and a
 * socket can be bound to it. */
#ifndef RECV_LISTEN_CHECK_H
#define RECV_LISTEN_CHECK_H

struct rs_endpoint;
struct rs_error;

/* 0 when ep's host is empty (all addresses) or an address of this host (a
 * name that cannot be resolved for want of a name server counts as fine:
 * it is the start's to say); else RS_E_INVAL naming it and the fix. where
 * says where it was given ("FILE", "--listen"). */
int recv_listen_check(const struct rs_endpoint *ep, const char *where,
		      struct rs_error *err);

#endif
