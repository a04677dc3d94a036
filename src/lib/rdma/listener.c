#include "rdma/listener.h"

#include "error.h"
#include "rdma/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int bind_address(struct rs_listener *l, const char *host,
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
	snprintf(l->shown, sizeof(l->shown), "%s:%s", shown, port);
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
	l->reserve_fd = -1;
	if (!rc)
		rc = bind_address(l, host, port, err);
	if (!rc)
		l->reserve_fd = fcntl(l->cm_channel->fd, F_DUPFD_CLOEXEC, 0);
	if (rc)
		rs_listener_delete(&l);
	*listener = l;
	return rc;
}

int rs_listener_open(struct rs_listener *l, struct rs_error *err)
{
	if (rdma_listen(l->id, RS_LISTEN_BACKLOG))
		return rs_error_set(err, RS_E_PROVIDER, errno,
				    "cannot listen on %s: %s", l->shown,
				    strerror(errno));
	return 0;
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
	if (l->reserve_fd >= 0)
		close(l->reserve_fd);
	free(l);
	*listener = 0;
}

/* An event channel for a request: at the open-file limit, the spare
 * descriptor is given up for it (*starved then says so). */
static struct rdma_event_channel *request_channel(struct rs_listener *l,
						  bool *starved)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	if (ch || !rs_errno_out_of_files(errno) || l->reserve_fd < 0)
		return ch;
	close(l->reserve_fd);
	l->reserve_fd = -1;
	*starved = true;
	return rdma_create_event_channel();
}

/* A connection for an incoming request, moved to an event channel of its
 * own (as librpma does), so whoever serves it, on whatever thread, reads
 * its events and the listener's channel carries only new requests. The
 * request's event must be acked before the move. */
static struct rs_conn *take_request(struct rs_listener *l,
				    struct rdma_cm_id *id, bool *starved)
{
	struct rs_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return 0;
	c->cm_channel = request_channel(l, starved);
	if (!c->cm_channel || rdma_migrate_id(id, c->cm_channel)) {
		if (c->cm_channel)
			rdma_destroy_event_channel(c->cm_channel);
		free(c);
		return 0;
	}
	c->owns_cm_channel = true;
	c->id = id;
	c->id->context = c;
	return c;
}

int rs_listener_fd(const struct rs_listener *l)
{
	return l->cm_channel->fd;
}

int rs_listener_next_event(struct rs_listener *l, int timeout_ms,
			   struct rs_listener_event *out, struct rs_error *err)
{
	memset(out, 0, sizeof(*out));
	if (l->reserve_fd < 0) /* given up: taken back once there is room */
		l->reserve_fd = fcntl(l->cm_channel->fd, F_DUPFD_CLOEXEC, 0);
	struct rdma_cm_event *ev;
	if (rs_cm_event_wait(l->cm_channel, timeout_ms, &ev))
		return errno == ETIMEDOUT || errno == EINTR
			   ? 0
			   : rs_error_set(err, RS_E_PROVIDER, errno,
					  "cannot read a connection event: %s",
					  strerror(errno));
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		rs_private_data_copy(ev, &out->priv);
		struct rdma_cm_id *id = ev->id;
		rdma_ack_cm_event(ev);
		out->conn = take_request(l, id, &out->out_of_descriptors);
		if (!out->conn) { /* refuse what we cannot hold */
			rdma_reject(id, 0, 0);
			rdma_destroy_id(id);
			return 0;
		}
		out->type = RS_LISTENER_REQUEST;
		return 0;
	}
	/* The listener's own events (none expected): nothing to do. */
	rdma_ack_cm_event(ev);
	return 0;
}
