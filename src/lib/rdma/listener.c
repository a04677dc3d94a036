#include "rdma/listener.h"

#include "error.h"
#include "rdma/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int bind_and_listen(struct rs_listener *l, const char *host,
			   const char *port, struct rs_error *err)
{
	struct rdma_addrinfo hints = {.ai_flags = RAI_PASSIVE,
				      .ai_port_space = RDMA_PS_TCP};
	struct rdma_addrinfo *ai = 0;
	const char *shown = host ? host : "*";
	if (rdma_getaddrinfo(host, port, &hints, &ai))
		return rs_error_set(err, RS_E_PROVIDER, errno,
				    "cannot resolve listen address %s:%s: %s",
				    shown, port, rs_rdma_errno_hint(errno));
	int ret = rdma_bind_addr(l->id, ai->ai_src_addr);
	rdma_freeaddrinfo(ai);
	if (ret)
		return rs_error_set(
		    err, RS_E_PROVIDER, errno,
		    "cannot listen on %s:%s: %s (no RDMA device "
		    "on that address, or the port is taken)",
		    shown, port, rs_rdma_errno_hint(errno));
	if (rdma_listen(l->id, 8))
		return rs_error_set(err, RS_E_PROVIDER, errno,
				    "cannot listen on %s:%s: %s", shown, port,
				    strerror(errno));
	return 0;
}

int rs_listener_new(const char *host, const char *port,
		    struct rs_listener **listener, struct rs_error *err)
{
	struct rs_listener *l = calloc(1, sizeof(*l));
	if (!l)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	if (host && !host[0])
		host = 0;
	int rc = 0;
	l->cm_channel = rdma_create_event_channel();
	if (!l->cm_channel ||
	    rdma_create_id(l->cm_channel, &l->id, l, RDMA_PS_TCP))
		rc = rs_error_set(err, RS_E_PROVIDER, errno,
				  "cannot create an RDMA CM id: %s",
				  rs_rdma_errno_hint(errno));
	if (!rc)
		rc = bind_and_listen(l, host, port, err);
	if (rc)
		rs_listener_delete(&l);
	*listener = l;
	return rc;
}

void rs_listener_delete(struct rs_listener **listener)
{
	struct rs_listener *l = *listener;
	if (!l)
		return;
	if (l->id)
		rdma_destroy_id(l->id);
	if (l->cm_channel)
		rdma_destroy_event_channel(l->cm_channel);
	free(l);
	*listener = 0;
}

/* A connection for an incoming request; it shares the listener's channel,
 * and its id's context leads later events back to it. */
static struct rs_conn *take_request(struct rs_listener *l,
				    struct rdma_cm_event *ev)
{
	struct rs_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return 0;
	c->cm_channel = l->cm_channel;
	c->owns_cm_channel = false;
	c->id = ev->id;
	c->id->context = c;
	return c;
}

static enum rs_listener_event_type classify(enum rdma_cm_event_type t)
{
	switch (t) {
	case RDMA_CM_EVENT_ESTABLISHED:
		return RS_LISTENER_ESTABLISHED;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return RS_LISTENER_CLOSED;
	default:
		return RS_LISTENER_NONE;
	}
}

int rs_listener_fd(const struct rs_listener *l)
{
	return l->cm_channel->fd;
}

int rs_listener_next_event(struct rs_listener *l, int timeout_ms,
			   struct rs_listener_event *out, struct rs_error *err)
{
	memset(out, 0, sizeof(*out));
	struct rdma_cm_event *ev;
	if (rs_cm_event_wait(l->cm_channel, timeout_ms, &ev))
		return errno == ETIMEDOUT || errno == EINTR
			   ? 0
			   : rs_error_set(err, RS_E_PROVIDER, errno,
					  "cannot read a connection event: %s",
					  strerror(errno));
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		out->conn = take_request(l, ev);
		rs_private_data_copy(ev, &out->priv);
		struct rdma_cm_id *id = ev->id;
		rdma_ack_cm_event(ev);
		if (!out->conn) { /* refuse what we cannot hold */
			rdma_reject(id, 0, 0);
			rdma_destroy_id(id);
			return 0;
		}
		out->type = RS_LISTENER_REQUEST;
		return 0;
	}
	if (ev->id != l->id) {
		out->type = classify(ev->event);
		out->conn = ev->id->context;
		if (out->type == RS_LISTENER_ESTABLISHED)
			out->conn->established = true;
		if (out->type == RS_LISTENER_CLOSED)
			out->conn->established = false;
	}
	rdma_ack_cm_event(ev);
	return 0;
}
