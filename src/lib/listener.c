#include "listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

int rs_listener_new(struct rs_listener *l, const struct rs_endpoint *ep,
		    char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	struct rdma_addrinfo hints = {.ai_flags = RAI_PASSIVE,
				      .ai_port_space = RDMA_PS_TCP};
	struct rdma_addrinfo *ai = 0;
	const char *host = ep->host[0] ? ep->host : 0;
	if (rdma_getaddrinfo(host, ep->port, &hints, &ai)) {
		snprintf(err, errlen, "cannot resolve listen address %s:%s: %s",
			 host ? host : "*", ep->port,
			 rs_rdma_errno_hint(errno));
		return -1;
	}
	l->cm_channel = rdma_create_event_channel();
	if (!l->cm_channel ||
	    rdma_create_id(l->cm_channel, &l->id, l, RDMA_PS_TCP)) {
		snprintf(err, errlen,
			 "cannot create an RDMA CM id: %s (is rdma_cm "
			 "available and an RDMA device configured?)",
			 strerror(errno));
		rdma_freeaddrinfo(ai);
		return -1;
	}
	int ret = rdma_bind_addr(l->id, ai->ai_src_addr);
	rdma_freeaddrinfo(ai);
	if (ret) {
		snprintf(err, errlen,
			 "cannot listen on %s:%s: %s (no RDMA device on that "
			 "address, or the port is taken)",
			 host ? host : "*", ep->port,
			 rs_rdma_errno_hint(errno));
		return -1;
	}
	if (rdma_listen(l->id, 8)) {
		snprintf(err, errlen, "cannot listen on %s:%s: %s",
			 host ? host : "*", ep->port, strerror(errno));
		return -1;
	}
	return 0;
}

void rs_listener_delete(struct rs_listener *l)
{
	if (l->id)
		rdma_destroy_id(l->id);
	if (l->cm_channel)
		rdma_destroy_event_channel(l->cm_channel);
	memset(l, 0, sizeof(*l));
}

void rs_listener_take_request(struct rs_listener *l,
			      const struct rdma_cm_event *ev, struct rs_conn *c,
			      struct rs_private_data *priv)
{
	memset(c, 0, sizeof(*c));
	c->cm_channel = l->cm_channel;
	c->owns_cm_channel = false;
	c->id = ev->id;
	size_t len = ev->param.conn.private_data_len;
	if (!ev->param.conn.private_data)
		len = 0;
	if (len > sizeof(priv->bytes))
		len = sizeof(priv->bytes);
	memcpy(priv->bytes, ev->param.conn.private_data, len);
	priv->len = len;
}

const char *rs_conn_peer_str(const struct rs_conn *c, char *buf, size_t len)
{
	struct sockaddr *sa = rdma_get_peer_addr(c->id);
	char host[INET6_ADDRSTRLEN] = "?";
	socklen_t salen = sa->sa_family == AF_INET6
			      ? sizeof(struct sockaddr_in6)
			      : sizeof(struct sockaddr_in);
	getnameinfo(sa, salen, host, sizeof(host), 0, 0, NI_NUMERICHOST);
	snprintf(buf, len, "%s", host);
	return buf;
}
