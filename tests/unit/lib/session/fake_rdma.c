/* The fake of src/lib/rdma (fake_rdma.h): the calls session/ makes. */
#include "fake_rdma.h"

#include "error.h"
#include "rdma/mr.h"
#include "rdma/peer.h"

#include <stdlib.h>
#include <string.h>

struct rs_conn {
	char unused;
};
struct rs_peer {
	char unused;
};
struct rs_mr {
	uint8_t *addr;
	size_t len;
};

struct fake_rdma fake;

void fake_rdma_reset(void)
{
	memset(&fake, 0, sizeof(fake));
}

static struct rs_conn *conn_new(void)
{
	fake.conns++;
	return calloc(1, sizeof(struct rs_conn));
}

struct rs_conn *fake_conn_incoming(void)
{
	return conn_new();
}

int rs_conn_resolve(const char *host, const char *port, int timeout_ms,
		    struct rs_conn **conn, struct rs_error *err)
{
	(void)host, (void)port, (void)timeout_ms, (void)err;
	*conn = conn_new();
	return 0;
}

int rs_conn_connect(struct rs_conn *c, const void *priv, uint8_t priv_len,
		    int timeout_ms, struct rs_private_data *reply,
		    struct rs_error *err)
{
	(void)c, (void)timeout_ms;
	if (fake.connects >= 2)
		return rs_error_set(err, RS_E_UNREACHABLE, 0, "fake: no peer");
	struct rs_private_data *req = &fake.requests[fake.connects];
	memcpy(req->bytes, priv, priv_len);
	req->len = priv_len;
	const struct fake_answer *a = &fake.answers[fake.connects++];
	if (a->rc && a->rc != RS_E_REJECTED)
		return rs_error_set(err, a->rc, 0, "fake: connect failed");
	*reply = a->data;
	return a->rc;
}

int rs_conn_answer_ms(const struct rs_conn *c)
{
	(void)c;
	return 1;
}

int rs_conn_create_qp(struct rs_conn *c, struct rs_peer *peer,
		      uint32_t send_depth, uint32_t recv_depth,
		      struct rs_error *err)
{
	(void)c, (void)peer, (void)send_depth, (void)recv_depth;
	if (fake.create_qp_rc)
		return rs_error_set(err, fake.create_qp_rc, 0,
				    "fake: no queue pair");
	return 0;
}

int rs_conn_ready(struct rs_conn *c, unsigned access, struct rs_error *err)
{
	(void)c, (void)err;
	fake.access = access;
	return 0;
}

int rs_conn_answer(struct rs_conn *c, const void *priv, uint8_t priv_len,
		   struct rs_error *err)
{
	(void)c, (void)err;
	fake.accepted = true;
	memcpy(fake.accept_data.bytes, priv, priv_len);
	fake.accept_data.len = priv_len;
	return 0;
}

int rs_conn_set_access(struct rs_conn *c, unsigned access, struct rs_error *err)
{
	(void)c, (void)err;
	fake.access = access;
	return 0;
}

void rs_conn_reject(struct rs_conn *c, const void *priv, uint8_t priv_len)
{
	(void)c;
	fake.rejected = true;
	memcpy(fake.reject_data.bytes, priv, priv_len);
	fake.reject_data.len = priv_len;
}

void rs_conn_disconnect(struct rs_conn *c)
{
	(void)c;
}

void rs_conn_delete(struct rs_conn **c)
{
	if (!*c)
		return;
	free(*c);
	*c = 0;
	fake.conns--;
}

void rs_conn_set_busy_poll(struct rs_conn *c, bool busy_poll)
{
	(void)c;
	fake.busy_poll = busy_poll;
}

void rs_conn_quiet_sends(struct rs_conn *c)
{
	(void)c;
	fake.quiet_sends = true;
}

bool rs_conn_can_flush(const struct rs_conn *c, const char **why_not)
{
	(void)c;
	*why_not = fake.flush_why_not;
	return !fake.flush_why_not;
}

int rs_conn_send(struct rs_conn *c, const struct rs_mr *src, size_t offset,
		 uint32_t len, uint64_t wr_id, unsigned flags)
{
	(void)c;
	if (fake.nsends == FAKE_QUEUE_MAX || len > sizeof(fake.sends[0].bytes))
		return RS_E_LOST;
	struct fake_post *p = &fake.sends[fake.nsends++];
	*p = (struct fake_post){
	    .offset = offset, .len = len, .wr_id = wr_id, .flags = flags};
	memcpy(p->bytes, src->addr + offset, len);
	return 0;
}

int rs_conn_recv(struct rs_conn *c, struct rs_mr *dst, size_t offset,
		 uint32_t len, uint64_t wr_id)
{
	(void)c;
	if (fake.nrecvs == FAKE_QUEUE_MAX)
		return RS_E_LOST;
	fake.recvs[fake.nrecvs++] = (struct fake_post){
	    .mr = dst, .offset = offset, .len = len, .wr_id = wr_id};
	return 0;
}

/* The next message the peer sends, into the oldest receive posted. */
static bool deliver(struct rs_completion *wc)
{
	if (fake.delivered == fake.nincoming || !fake.nrecvs)
		return false;
	const struct rs_private_data *m = &fake.incoming[fake.delivered++];
	struct fake_post r = fake.recvs[0];
	memmove(&fake.recvs[0], &fake.recvs[1],
		--fake.nrecvs * sizeof(fake.recvs[0]));
	uint32_t len = m->len < r.len ? (uint32_t)m->len : r.len;
	memcpy(r.mr->addr + r.offset, m->bytes, len);
	*wc = (struct rs_completion){
	    .wr_id = r.wr_id, .op = RS_OP_RECV, .ok = true, .byte_len = len};
	return true;
}

/* Signaled sends complete first, then the peer's messages arrive. */
enum rs_wait_result rs_conn_next_completion(struct rs_conn *c,
					    struct rs_completion *wc,
					    int timeout_ms)
{
	(void)c, (void)timeout_ms;
	while (fake.sends_completed < fake.nsends) {
		const struct fake_post *s = &fake.sends[fake.sends_completed++];
		if (s->flags & RS_POST_SIGNALED) {
			*wc = (struct rs_completion){
			    .wr_id = s->wr_id, .op = RS_OP_SEND, .ok = true};
			return RS_WAIT_COMPLETION;
		}
	}
	return deliver(wc) ? RS_WAIT_COMPLETION : RS_WAIT_TIMEOUT;
}

int rs_mr_reg(struct rs_peer *peer, void *addr, size_t len, unsigned access,
	      struct rs_mr **mr, struct rs_error *err)
{
	(void)peer, (void)access, (void)err;
	*mr = malloc(sizeof(**mr));
	**mr = (struct rs_mr){.addr = addr, .len = len};
	fake.mrs++;
	return 0;
}

void rs_mr_dereg(struct rs_mr **mr)
{
	if (!*mr)
		return;
	free(*mr);
	*mr = 0;
	fake.mrs--;
}

int rs_peer_new(const struct rs_conn *conn, struct rs_peer **peer,
		struct rs_error *err)
{
	(void)conn, (void)err;
	*peer = calloc(1, sizeof(**peer));
	fake.peers++;
	return 0;
}

int rs_peer_delete(struct rs_peer **peer)
{
	if (!*peer)
		return 0;
	free(*peer);
	*peer = 0;
	fake.peers--;
	return 0;
}
