/* A listener: an rdma_cm id bound to an address and port. Its events carry
 * every incoming connection request: a new struct rs_conn with the
 * sender's private data, to accept or reject. The later life of that
 * connection (established, closed) comes through the connection's own
 * events (rs_conn_next_event), so any thread may serve it. */
#ifndef RS_LISTENER_H
#define RS_LISTENER_H

#include "rdma/conn.h"

struct rs_error;
struct rs_listener;

/* Requests that may wait for the service to take them (the kernel caps
 * it: net.rdma_ucm.max_backlog, 1024 by default); beyond it the kernel
 * does not pass them on. A fleet reconnects at once after a restart. */
#define RS_LISTEN_BACKLOG 1024

/* Binds to the address, so that a taken port or an address without an
 * RDMA device fails now; requests are refused (the sender hears "refused")
 * until rs_listener_open. host NULL or empty: every address. */
int rs_listener_new(const char *host, const char *port, struct rs_listener **l,
		    struct rs_error *err);
/* Takes requests from now on: call it when they can be answered at once. */
int rs_listener_open(struct rs_listener *l, struct rs_error *err);
void rs_listener_delete(struct rs_listener **l);

enum rs_listener_event_type {
	RS_LISTENER_NONE,    /* timed out, or an event of no interest */
	RS_LISTENER_REQUEST, /* conn is new and the caller's */
};

struct rs_listener_event {
	enum rs_listener_event_type type;
	struct rs_conn *conn;
	struct rs_private_data priv; /* REQUEST: what the sender sent */
	/* REQUEST: the process is at its open-file limit (the request got
	 * the listener's spare descriptor): it can be refused, saying why,
	 * but not served. */
	bool out_of_descriptors;
};

/* The descriptor to poll(2) for the next event, for a caller that waits on
 * other things too. */
int rs_listener_fd(const struct rs_listener *l);

/* Waits up to timeout_ms for one event. */
int rs_listener_next_event(struct rs_listener *l, int timeout_ms,
			   struct rs_listener_event *ev, struct rs_error *err);

#endif
