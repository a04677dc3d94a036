#include "rogue.h"

#include "proto/method.h"
#include "rdma/mr.h"
#include "rdma/peer.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The one line printed at the end: what each variant saw. */
char report[4096];

static struct rs_auth_key loaded_key;
const struct rs_auth_key *rogue_key;

int rogue_key_load(void)
{
	const char *path = getenv("ROGUE_AUTH_KEY");
	struct rs_error e = {0};
	if (!path)
		return 0;
	if (rs_auth_key_load(path, &loaded_key, &e)) {
		fprintf(stderr, "rogue_sender: %s\n", rs_error_str(&e));
		return -1;
	}
	rogue_key = &loaded_key;
	return 0;
}

int sync_point(const char *name)
{
	const char *dir = getenv("ROGUE_SYNC_DIR");
	char path[4096], go[4200];
	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(go, sizeof(go), "%s.go", path);
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
	for (int i = 0; i < 600; i++) {
		if (access(go, F_OK) == 0) {
			unlink(go);
			return 0;
		}
		sleep_ms(100);
	}
	note("the test did not answer at %s", name);
	return -1;
}

void note(const char *fmt, ...)
{
	size_t used = strlen(report);
	if (used && used + 2 < sizeof(report)) {
		memcpy(report + used, "; ", 3);
		used += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(report + used, sizeof(report) - used, fmt, ap);
	va_end(ap);
}

/* The worse of two results: misbehaviour over could-not-run over safe. */
int worse(int a, int b)
{
	if (a == ROGUE_UNSAFE || b == ROGUE_UNSAFE)
		return ROGUE_UNSAFE;
	return a > b ? a : b;
}

int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (long)(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

const char *status_name(uint8_t status)
{
	switch (status) {
	case RS_MSG_OK:
		return "ok";
	case RS_MSG_OUT_OF_RANGE:
		return "out of range";
	case RS_MSG_NOT_CONTIGUOUS:
		return "not contiguous";
	case RS_MSG_BAD_REQUEST:
		return "bad request";
	default:
		return "unknown status";
	}
}

void rogue_close(struct rogue *r)
{
	if (r->conn)
		rs_conn_disconnect(r->conn);
	rs_conn_delete(&r->conn);
	rs_mr_dereg(&r->mr);
	rs_peer_delete(&r->peer);
	free(r->buf);
	r->buf = 0;
}

/* Resolves, creates the QP, registers the buffer and posts the receives, as
 * rpma-send does before it connects. */
static int rogue_open(struct rogue *r, char *err, size_t errlen)
{
	struct rs_error e = {0};
	if (rs_conn_resolve(r->ep.host, r->ep.port, RESOLVE_TIMEOUT_MS,
			    &r->conn, &e) ||
	    rs_peer_new(r->conn, &r->peer, &e) ||
	    rs_conn_create_qp(r->conn, r->peer, 16, RECVS, &e)) {
		snprintf(err, errlen, "%s", rs_error_str(&e));
		return -1;
	}
	if (posix_memalign((void **)&r->buf, 4096, BUF_SIZE)) {
		r->buf = 0;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(r->buf, 0, BUF_SIZE);
	if (rs_mr_reg(r->peer, r->buf, BUF_SIZE, RS_MR_LOCAL, &r->mr, &e)) {
		snprintf(err, errlen, "cannot register buffers: %s",
			 rs_error_str(&e));
		return -1;
	}
	for (uint32_t i = 0; i < RECVS; i++) {
		if (rs_conn_recv(r->conn, r->mr, i * RECV_SLOT, RECV_SLOT,
				 WR_RECV + i)) {
			snprintf(err, errlen, "cannot post a receive: %s",
				 POST_LOST);
			return -1;
		}
	}
	return 0;
}

/* Connects with exactly these private data bytes and classifies the first
 * event. Returns -1 with err only when the request could not be made. */
static int raw_connect(struct rogue *r, const void *priv, uint8_t len,
		       struct connect_result *res, char *err, size_t errlen)
{
	memset(res, 0, sizeof(*res));
	res->rc = rs_conn_connect(r->conn, priv, len, CONNECT_TIMEOUT_MS,
				  &res->reply, &res->error);
	switch (res->rc) {
	case 0:
	case RS_E_REJECTED:
	case RS_E_UNREACHABLE:
		return 0;
	case RS_E_TIMEOUT:
		res->timed_out = true;
		return 0;
	default:
		snprintf(err, errlen, "%s", rs_error_str(&res->error));
		return -1;
	}
}

/* Refused for now: busy, or the log not open yet (the receiver starting). */
static bool rejected_busy(const struct connect_result *res)
{
	struct rs_reject_info rej;
	return !res->timed_out && res->rc == RS_E_REJECTED &&
	       !rs_reject_decode(res->reply.bytes, res->reply.len, &rej,
				 NULL) &&
	       (rej.reason == RS_REJECT_BUSY ||
		rej.reason == RS_REJECT_STARTING);
}

/* Opens a connection and connects with priv, again while the receiver says
 * it is busy (it may still be ending our previous connection, or opening
 * the log). */
int attempt(struct rogue *r, const void *priv, uint8_t len,
	    struct connect_result *res, char *err, size_t errlen)
{
	for (int i = 0;; i++) {
		if (rogue_open(r, err, errlen) ||
		    raw_connect(r, priv, len, res, err, errlen))
			return -1;
		if (!rejected_busy(res) || i == BUSY_RETRIES)
			return 0;
		rogue_close(r);
		sleep_ms(BUSY_PAUSE_MS);
	}
}

/* What a request says the rogue can do: every method as a writer (a
 * scenario that needs flush checks its connection), none as a reader. */
uint8_t methods_of(uint8_t flags)
{
	return flags & RS_CONNECT_VERIFY ? 0 : RS_METHOD_ALL;
}

/* Connects with flags (0: as an ordinary sender) asking for method. */
int session_open_as(struct rogue *r, uint8_t flags, uint8_t method, char *err,
		    size_t errlen)
{
	struct rs_connect_req req = {
	    .flags = flags, .method = method, .methods = methods_of(flags)};
	return session_open_req(r, &req, true, err, errlen);
}

int send_auth_answer(struct rogue *r, const struct rs_session_token *token,
		     char *err, size_t errlen)
{
	if (!rogue_key) {
		snprintf(err, errlen,
			 "the log wants an auth key "
			 "(ROGUE_AUTH_KEY)");
		return -1;
	}
	struct rs_msg m = {.type = RS_MSG_AUTH};
	rs_auth_mac(rogue_key, r->nonce, token, m.mac);
	if (send_msg(r, &m)) {
		snprintf(err, errlen, "cannot answer the challenge: %s",
			 POST_LOST);
		return -1;
	}
	return 0;
}

int take_grant(struct rogue *r, char *err, size_t errlen)
{
	struct outcome o;
	await(r, &o, 3 * REPLY_TIMEOUT_MS, WR_RECV);
	struct rs_error e = {0};
	if (!o.recv_len ||
	    rs_accept_info_decode(r->buf + o.recv_slot * RECV_SLOT, o.recv_len,
				  &r->info, &e)) {
		snprintf(err, errlen, "no grant after the auth answer%s%s",
			 o.closed ? ": " : "", o.closed ? o.closed_how : "");
		return -1;
	}
	return 0;
}

int session_open_req(struct rogue *r, struct rs_connect_req *req, bool answer,
		     char *err, size_t errlen)
{
	snprintf(req->log_name, sizeof(req->log_name), "%s", r->name);
	uint8_t priv[RS_CONNECT_PRIVATE_MAX];
	size_t len = rs_connect_req_encode(req, priv, sizeof(priv));
	struct connect_result res;
	if (attempt(r, priv, (uint8_t)len, &res, err, errlen))
		return -1;
	if (res.timed_out) {
		snprintf(err, errlen, "no answer to a valid connect request");
		return -1;
	}
	if (res.rc != 0) {
		struct rs_reject_info rej;
		if (res.rc == RS_E_REJECTED &&
		    !rs_reject_decode(res.reply.bytes, res.reply.len, &rej,
				      NULL))
			snprintf(err, errlen, "receiver refused method %s: %s",
				 rs_method_name((enum rs_method)req->method),
				 rs_reject_reason_str(rej.reason));
		else
			snprintf(err, errlen, "connect failed: %s",
				 rs_error_str(&res.error));
		return -1;
	}
	struct rs_error e = {0};
	struct rs_challenge ch;
	if (rs_challenge_decode(res.reply.bytes, res.reply.len, &ch, 0) == 0) {
		r->challenged = true;
		memcpy(r->nonce, ch.nonce, sizeof(r->nonce));
		if (!answer)
			return 0;
		return send_auth_answer(r, &req->token, err, errlen)
			   ? -1
			   : take_grant(r, err, errlen);
	}
	if (rs_accept_info_decode(res.reply.bytes, res.reply.len, &r->info,
				  &e)) {
		snprintf(err, errlen, "unusable accept private data: %s",
			 rs_error_str(&e));
		return -1;
	}
	return 0;
}

/* A case that could not run: says why, closes, and is NORUN. */
int cannot_run(struct rogue *r, const char *name, const char *why)
{
	note("%s: could not run: %s", name, why);
	rogue_close(r);
	return ROGUE_NORUN;
}

static void closed_by(struct outcome *o, const char *how)
{
	if (o->closed)
		return;
	o->closed = true;
	snprintf(o->closed_how, sizeof(o->closed_how), "%s", how);
}

/* The connection is closed. After a failed completion our disconnect puts
 * the QP in error, so what is still posted flushes after any reply that
 * arrived first; after the receiver's disconnect the library has already
 * marked the connection down, so nothing flushes and the grace ends the
 * wait. */
static void closing(struct rogue *r, struct outcome *o, const char *how,
		    int64_t *deadline)
{
	closed_by(o, how);
	rs_conn_disconnect(r->conn);
	if (*deadline > now_ms() + CLOSE_GRACE_MS)
		*deadline = now_ms() + CLOSE_GRACE_MS;
}

/* Records one completion in o and returns its kind. */
static uint64_t record(struct rogue *r, struct outcome *o,
		       const struct rs_completion *wc, int64_t *deadline)
{
	uint64_t kind = WR_KIND(wc->wr_id);
	if (kind == WR_WRITE) {
		o->write_done = true;
		o->write = *wc;
	}
	if (kind == WR_SEND) {
		o->send_done = true;
		o->send = *wc;
	}
	if (!wc->ok) {
		closing(r, o, wc->flushed ? "flush error" : wc->status,
			deadline);
	} else if (kind == WR_RECV) {
		const uint8_t *in = r->buf + (wc->wr_id & 0xff) * RECV_SLOT;
		o->recv_slot = (uint32_t)(wc->wr_id & 0xff);
		o->recv_len = wc->byte_len;
		o->replied = true;
		o->reply_malformed = rs_msg_decode(in, wc->byte_len, &o->reply,
						   &o->reply_error) != 0;
		if (!o->reply_malformed && o->reply.key &&
		    o->reply.key != r->key) {
			r->key_before = r->key;
			r->key = r->info.data.rkey = o->reply.key;
			r->key_end = o->reply.key_end;
		}
	}
	return kind;
}

/* Collects completions and connection events for at most timeout_ms.
 * Returns at the first completion of kind stop_kind (0: none), or once the
 * connection is closed and what was posted has flushed (after a short
 * grace). */
void await(struct rogue *r, struct outcome *o, int timeout_ms,
	   uint64_t stop_kind)
{
	memset(o, 0, sizeof(*o));
	int64_t deadline = now_ms() + timeout_ms;
	uint32_t recvs_done = 0;
	for (;;) {
		int64_t left = deadline - now_ms();
		if (left <= 0)
			return;
		struct rs_completion wc;
		enum rs_wait_result w =
		    rs_conn_next_completion(r->conn, &wc, (int)left);
		if (w == RS_WAIT_TIMEOUT)
			continue;
		if (w == RS_WAIT_ERROR) {
			closed_by(o, "completion queue error");
			return;
		}
		if (w == RS_WAIT_CM_EVENT) {
			if (rs_conn_next_event(r->conn) == RS_CONN_EVENT_CLOSED)
				closing(r, o, "disconnected by the receiver",
					&deadline);
			continue;
		}
		uint64_t kind = record(r, o, &wc, &deadline);
		if (kind == WR_RECV)
			recvs_done++;
		if (stop_kind && kind == stop_kind)
			return;
		if (o->closed && recvs_done == RECVS)
			return; /* nothing more can arrive */
	}
}

/* Sends len bytes of the send area as a control message. */
int send_raw(struct rogue *r, uint32_t len)
{
	return rs_conn_send(r->conn, r->mr, OFF_SEND, len, WR_SEND,
			    RS_POST_SIGNALED);
}

int send_msg(struct rogue *r, struct rs_msg *m)
{
	m->seq = ++r->seq;
	rs_msg_encode(m, r->buf + OFF_SEND, RS_MSG_SIZE);
	return send_raw(r, RS_MSG_SIZE);
}

/* A gpspm writer granted windows asks for its first key, as rpma-send
 * does: then info.data writes the log's unused tail. */
int take_window(struct rogue *r, char *err, size_t errlen)
{
	struct rs_msg req = {.type = RS_MSG_WINDOW};
	struct outcome o;
	if (send_msg(r, &req)) {
		snprintf(err, errlen, "cannot ask for a window: %s", POST_LOST);
		return -1;
	}
	await(r, &o, REPLY_TIMEOUT_MS, WR_RECV);
	if (!o.replied || o.reply_malformed ||
	    o.reply.type != RS_MSG_WINDOW_DONE || o.reply.status != RS_MSG_OK) {
		snprintf(err, errlen, "no window granted");
		return -1;
	}
	return 0;
}

int session_open(struct rogue *r, uint8_t method, char *err, size_t errlen)
{
	r->key = r->key_before = 0;
	r->key_end = 0;
	if (session_open_as(r, 0, method, err, errlen))
		return -1;
	if (method == RS_METHOD_GPSPM && (r->info.peer_flags & RS_PEER_WINDOWS))
		return take_window(r, err, errlen);
	return 0;
}

bool refused_by_nic(const char *status)
{
	return !strcmp(status, REMOTE_ACCESS_ERROR) ||
	       !strcmp(status, REMOTE_INVALID_REQUEST);
}

/* Safe only when the remote NIC refused the case's RDMA operation (op:
 * WRITE or READ) with an access error. */
int access_verdict(const char *what, const char *op, const struct outcome *o)
{
	if (!o->write_done) {
		note("%s: no completion within %d ms", what, REPLY_TIMEOUT_MS);
		return ROGUE_UNSAFE;
	}
	if (o->write.ok) {
		note("%s: %s SUCCEEDED outside the granted region", what, op);
		return ROGUE_UNSAFE;
	}
	if (o->write.flushed || !refused_by_nic(o->write.status)) {
		note("%s: failed with %s, not the NIC's refusal", what,
		     o->write.status);
		return ROGUE_UNSAFE;
	}
	note("%s: %s", what, o->write.status);
	return ROGUE_SAFE;
}

/* On the open session, RDMA-writes dst.length bytes to dst, judges it by
 * access_verdict and closes the session. */
int write_judged(struct rogue *r, const char *name,
		 const struct rs_mr_desc *dst)
{
	uint32_t len = (uint32_t)dst->length;
	memset(r->buf + OFF_PAYLOAD, 0xee, len);
	if (rs_conn_write(r->conn, dst, 0, r->mr, OFF_PAYLOAD, len, WR_WRITE,
			  RS_POST_SIGNALED)) {
		note("%s: could not run: cannot post a write: %s", name,
		     POST_LOST);
		rogue_close(r);
		return ROGUE_NORUN;
	}
	struct outcome o;
	await(r, &o, REPLY_TIMEOUT_MS, WR_WRITE);
	char what[128];
	snprintf(what, sizeof(what), "%s (%u bytes at 0x%llx key 0x%x)", name,
		 len, (unsigned long long)dst->addr, dst->rkey);
	int rc = access_verdict(what, "WRITE", &o);
	rogue_close(r);
	return rc;
}
