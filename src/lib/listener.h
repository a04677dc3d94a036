/* A listener: an rdma_cm id bound to an address and port, handing over one
 * incoming connection request at a time with its private data. */
#ifndef RS_LISTENER_H
#define RS_LISTENER_H

#include "conn.h"
#include "endpoint.h"

#include <sys/socket.h>

struct rs_listener {
	struct rdma_event_channel *cm_channel;
	struct rdma_cm_id *id;
};

int rs_listener_new(struct rs_listener *l, const struct rs_endpoint *ep,
		    char *err, size_t errlen);
void rs_listener_delete(struct rs_listener *l);

/* Turns a CONNECT_REQUEST event into a connection that shares the listener's
 * event channel; the caller accepts or rejects it. */
void rs_listener_take_request(struct rs_listener *l,
			      const struct rdma_cm_event *ev, struct rs_conn *c,
			      struct rs_private_data *priv);

/* Formats the peer address of c into buf. */
const char *rs_conn_peer_str(const struct rs_conn *c, char *buf, size_t len);

#endif
