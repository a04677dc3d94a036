#include "link.h"

#include "exit_code.h"
#include "log.h"
#include "mr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int prepare(struct send_link *l, const struct link_request *r)
{
	char err[512];
	if (rs_conn_resolve(&l->conn, r->remote, r->timeout_ms, err,
			    sizeof(err))) {
		rs_err("%s", err);
		return RS_EXIT_CONNECT;
	}
	if (rs_peer_new(&l->peer, l->conn.id->verbs)) {
		rs_err("cannot allocate a protection domain: %s",
		       strerror(errno));
		return RS_EXIT_CONNECT;
	}
	/* Up to four work requests per batch (APM) or sixteen reads per
	 * verified chunk, one receive each. */
	if (rs_conn_create_qp(&l->conn, l->peer.pd, 16u * r->slots + 4,
			      r->slots, err, sizeof(err))) {
		rs_err("%s", err);
		return RS_EXIT_CONNECT;
	}
	l->nslots = r->slots;
	l->slots = calloc(r->slots, sizeof(*l->slots));
	if (!l->slots)
		return RS_EXIT_CONNECT;
	int ret = rs_mr_reg(&l->peer, l->slots, r->slots * sizeof(*l->slots),
			    IBV_ACCESS_LOCAL_WRITE, &l->slots_mr);
	if (ret) {
		rs_err("cannot register control buffers: %s",
		       rs_mr_reg_advice(ret));
		return RS_EXIT_CONNECT;
	}
	/* Replies may arrive as soon as we are connected: post first. */
	for (uint16_t i = 0; i < r->slots; i++) {
		if (send_link_repost(l, i)) {
			rs_err("cannot post a receive: %s", strerror(errno));
			return RS_EXIT_CONNECT;
		}
	}
	return RS_EXIT_OK;
}

static int on_reject(const struct link_request *r,
		     const struct rs_private_data *reply, bool *busy)
{
	const char *host = r->remote->host, *port = r->remote->port;
	struct rs_reject_info rej;
	if (rs_reject_decode(reply->bytes, reply->len, &rej)) {
		rs_err("%s:%s refused the connection; is rpma-recv running on "
		       "that address and port?",
		       host, port);
		return RS_EXIT_CONNECT;
	}
	char why[256];
	enum rs_method unused;
	*busy = rej.reason == RS_REJECT_BUSY;
	if (rej.reason == RS_REJECT_METHOD &&
	    rs_method_choose(rej.methods, (enum rs_method)r->req.method,
			     &unused, why, sizeof(why)))
		rs_err("%s:%s refused the connection: %s", host, port, why);
	else
		rs_err("%s:%s refused the connection: %s", host, port,
		       rs_reject_reason_str(rej.reason));
	return RS_EXIT_REFUSED;
}

/* Answers the receiver's challenge; the grant then arrives as a message. */
static int authenticate(struct send_link *l, const struct link_request *r,
			const struct rs_challenge *challenge)
{
	const char *host = r->remote->host;
	if (!r->key) {
		rs_err("%s requires an auth key; give the shared key with "
		       "--auth-key FILE",
		       host);
		return RS_EXIT_REFUSED;
	}
	struct rs_msg answer = {.type = RS_MSG_AUTH};
	rs_auth_mac(r->key, challenge->nonce, answer.mac);
	rs_msg_encode(&answer, l->slots[0].request, RS_MSG_SIZE);
	if (rs_conn_post_send(&l->conn, l->slots[0].request, RS_MSG_SIZE,
			      l->slots_mr->lkey, UINT64_MAX, IBV_SEND_SIGNALED))
		return RS_EXIT_CONNECT;
	for (;;) {
		struct ibv_wc wc;
		enum rs_wait_result w =
		    rs_conn_next_completion(&l->conn, &wc, r->timeout_ms);
		if (w != RS_WAIT_COMPLETION || wc.status != IBV_WC_SUCCESS) {
			rs_err("%s did not accept our auth key (check that "
			       "both sides use the same --auth-key)",
			       host);
			return RS_EXIT_REFUSED;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		uint16_t i = (uint16_t)wc.wr_id;
		const char *why = rs_accept_info_decode(l->slots[i].reply,
							wc.byte_len, &l->info);
		if (why) {
			rs_err("%s sent an unusable description of its pool "
			       "(%s)",
			       host, why);
			return RS_EXIT_REFUSED;
		}
		if (send_link_repost(l, i))
			return RS_EXIT_CONNECT;
		return RS_EXIT_OK;
	}
}

int send_link_open(struct send_link *l, const struct link_request *r,
		   bool *busy)
{
	memset(l, 0, sizeof(*l));
	*busy = false;
	int rc = prepare(l, r);
	if (rc)
		return rc;
	l->conn.busy_poll = r->busy_poll;

	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	struct rs_connect_req req = r->req;
	if (r->key)
		req.flags |= RS_CONNECT_AUTH;
	size_t len = rs_connect_req_encode(&req, buf, sizeof(buf));
	struct rs_private_data reply;
	char err[512];
	int ret = rs_conn_connect(&l->conn, buf, (uint8_t)len, r->timeout_ms,
				  &reply, err, sizeof(err));
	if (ret == RS_CONN_REJECTED)
		return on_reject(r, &reply, busy);
	if (ret) {
		rs_err("%s:%s: %s", r->remote->host, r->remote->port, err);
		return RS_EXIT_CONNECT;
	}
	struct rs_challenge challenge;
	if (rs_challenge_decode(reply.bytes, reply.len, &challenge) == 0)
		return authenticate(l, r, &challenge);
	const char *why =
	    rs_accept_info_decode(reply.bytes, reply.len, &l->info);
	if (why) {
		rs_err("%s:%s sent an unusable description of its pool (%s)",
		       r->remote->host, r->remote->port, why);
		return RS_EXIT_REFUSED;
	}
	return RS_EXIT_OK;
}

void send_link_close(struct send_link *l)
{
	rs_conn_disconnect(&l->conn);
	rs_conn_destroy(&l->conn);
	rs_mr_dereg(&l->slots_mr);
	rs_peer_delete(&l->peer);
	free(l->slots);
	l->slots = 0;
}

int send_link_repost(struct send_link *l, uint16_t i)
{
	return rs_conn_post_recv(&l->conn, l->slots[i].reply,
				 sizeof(l->slots[i].reply), l->slots_mr->lkey,
				 i);
}
