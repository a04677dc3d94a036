#include "fetch/link.h"

#include "cli/log.h"
#include "common/stats.h"
#include "common/stop.h"
#include "connect/connect.h"
#include "error.h"
#include "rdma/mr.h"
#include "session/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FETCH_CHUNK (1u << 20) /* read at a time, at most */
#define FETCH_DEPTH 8	       /* chunks in flight, at most */
/* Soft-RoCE reads of 1 MiB crawl; hardware does not mind pieces. */
#define FETCH_PIECE (64u * 1024)
#define FETCH_SENDS_PER_SLOT (FETCH_CHUNK / FETCH_PIECE + 1)

struct fetch_chunk {
	uint64_t pos;
	uint32_t len;
	size_t at; /* where in the buffers */
	bool done;
};

struct fetch_link {
	const struct fetch_config *cfg;
	struct rs_session *rs;
	const struct rs_accept_info *grant;
	uint16_t depth;
	uint32_t chunk;
	uint8_t *bufs;
	struct rs_mr *mr;
	struct fetch_chunk chunks[FETCH_DEPTH];
	uint32_t seq;
};

static int post_failed(struct rs_error *err)
{
	int e = errno;
	return rs_error_set(err, RS_E_LOST, e, "%s", strerror(e));
}

static int setup(struct fetch_link *l)
{
	const struct rs_accept_info *g = l->grant;
	l->depth = g->credits < FETCH_DEPTH ? g->credits : FETCH_DEPTH;
	l->chunk = FETCH_CHUNK;
	/* what goes through the ring fits a slot of it */
	if (g->staging_read.length && g->staging_slot_size < l->chunk)
		l->chunk = g->staging_slot_size;
	size_t total = (size_t)l->depth * l->chunk;
	struct rs_error err = {0};
	l->bufs = malloc(total);
	if (!l->bufs || rs_mr_reg(rs_session_peer(l->rs), l->bufs, total,
				  RS_MR_LOCAL, &l->mr, &err)) {
		rs_err("cannot register %zu bytes of fetch buffers: %s", total,
		       l->bufs ? err.msg : "out of memory");
		return RS_E_NOMEM;
	}
	return 0;
}

int fetch_link_open(struct fetch_link **out, const struct fetch_config *cfg)
{
	struct fetch_link *l = calloc(1, sizeof(*l));
	if (!l)
		return RS_E_NOMEM;
	l->cfg = cfg;
	struct send_peer peer = {.remote = &cfg->remote,
				 .timeout_ms = cfg->timeout_ms,
				 .key = cfg->auth_key};
	struct rs_connect_req req = {.flags = RS_CONNECT_VERIFY,
				     .method = RS_METHOD_AUTO};
	int rc =
	    send_connect(&peer, req, FETCH_DEPTH, FETCH_SENDS_PER_SLOT, &l->rs);
	if (!rc) {
		l->grant = rs_session_grant(l->rs);
		rc = setup(l);
	}
	if (rc) {
		fetch_link_close(&l);
		return rc;
	}
	*out = l;
	return 0;
}

void fetch_link_close(struct fetch_link **lp)
{
	struct fetch_link *l = *lp;
	if (!l)
		return;
	rs_mr_dereg(&l->mr);
	free(l->bufs);
	rs_session_delete(&l->rs);
	free(l);
	*lp = 0;
}

/* ---- what comes back ---- */

/* The next completion, waiting up to timeout_ms. RS_E_LOST when the
 * connection failed, RS_E_INTERRUPTED on a stop request, RS_E_TIMEOUT. */
static int next(struct fetch_link *l, struct rs_completion *wc, int timeout_ms)
{
	uint64_t until = send_stats_now_ns() + (uint64_t)timeout_ms * 1000000u;
	for (;;) {
		enum rs_wait_result r =
		    rs_conn_next_completion(rs_session_conn(l->rs), wc, 200);
		if (r == RS_WAIT_COMPLETION)
			return wc->ok ? 0 : RS_E_LOST;
		if (r != RS_WAIT_TIMEOUT)
			return RS_E_LOST;
		if (send_stop_requested)
			return RS_E_INTERRUPTED;
		if (send_stats_now_ns() >= until)
			return RS_E_TIMEOUT;
	}
}

/* A message that came: decoded, its slot's receive posted again. */
static int message_of(struct fetch_link *l, const struct rs_completion *wc,
		      struct rs_msg *msg)
{
	uint16_t slot;
	struct rs_error err = {0};
	if (rs_session_take(l->rs, wc, msg, &slot, &err)) {
		char label[RS_TARGET_LABEL_SIZE];
		rs_target_label(&l->cfg->remote, label, sizeof(label));
		rs_err("%s sent a malformed reply (%s)", label, err.msg);
		return RS_E_MALFORMED;
	}
	return 0;
}

/* How long to wait for an answer: the receiver's to a wait comes within a
 * quarter of its peer timeout; a whole one means the link is gone. */
static int answer_ms(const struct fetch_link *l)
{
	return (int)l->grant->peer_timeout_ms + 1000;
}

int fetch_link_state(struct fetch_link *l, uint64_t pos, bool wait,
		     struct fetch_log *out)
{
	struct rs_msg msg = {.type = RS_MSG_WAIT,
			     .seq = ++l->seq,
			     .offset = pos,
			     .length = wait ? 1 : 0};
	uint16_t slot = rs_session_control_slot(l->rs);
	if (rs_session_send(l->rs, slot, &msg, UINT64_MAX, RS_POST_SIGNALED))
		return RS_E_LOST;
	for (;;) {
		struct rs_completion wc;
		int rc = next(l, &wc, answer_ms(l));
		if (rc)
			return rc == RS_E_TIMEOUT ? RS_E_LOST : rc;
		if (wc.op != RS_OP_RECV)
			continue;
		struct rs_msg reply;
		rc = message_of(l, &wc, &reply);
		if (rc)
			return rc;
		if (reply.type != RS_MSG_WAIT_DONE || reply.seq != l->seq)
			continue; /* an older answer */
		*out = (struct fetch_log){.first = reply.ring_offset,
					  .base = reply.length,
					  .end = reply.offset,
					  .content = reply.hash};
		return 0;
	}
}

/* ---- a round of chunks ---- */

/* RDMA-reads len bytes at remote of src into the buffers at `at`, in
 * pieces; the last is signaled with id. */
static int read_into(struct fetch_link *l, uint64_t id, size_t at,
		     const struct rs_mr_desc *src, uint64_t remote,
		     uint32_t len, struct rs_error *err)
{
	for (uint32_t done = 0; done < len; done += FETCH_PIECE) {
		uint32_t n =
		    len - done < FETCH_PIECE ? len - done : FETCH_PIECE;
		bool last = done + n == len;
		if (rs_conn_read(rs_session_conn(l->rs), l->mr, at + done, src,
				 remote + done, n, id,
				 last ? RS_POST_SIGNALED : 0))
			return post_failed(err);
	}
	return 0;
}

/* Asks the receiver to copy chunk i into its ring's slot i. */
static int stage(struct fetch_link *l, unsigned i, struct rs_error *err)
{
	const struct fetch_chunk *c = &l->chunks[i];
	struct rs_msg msg = {.type = RS_MSG_READ_STAGE,
			     .seq = i,
			     .offset = c->pos,
			     .length = c->len,
			     .ring_offset =
				 (uint64_t)i * l->grant->staging_slot_size};
	if (rs_session_send(l->rs, (uint16_t)i, &msg, UINT64_MAX,
			    RS_POST_SIGNALED))
		return post_failed(err);
	return 0;
}

/* Posts chunk i: from the pool, or staged through the ring. */
static int post_chunk(struct fetch_link *l, const struct fetch_log *st,
		      unsigned i, bool *from_pool, struct rs_error *err)
{
	const struct fetch_chunk *c = &l->chunks[i];
	struct read_prefix readable = read_prefix_of(l->grant);
	if (fetch_from_pool(st, &readable, c->pos, c->len)) {
		*from_pool = true;
		return read_into(l, i, c->at, &l->grant->data_read,
				 c->pos - st->base, c->len, err);
	}
	if (!l->grant->staging_read.length)
		return rs_error_set(err, RS_E_REJECTED, 0,
				    "the receiver grants no read of its ring");
	return stage(l, i, err);
}

/* A completion of the round: a chunk read, or staged (then read). */
static int take(struct fetch_link *l, const struct rs_completion *wc,
		unsigned *left, struct rs_error *err)
{
	if (wc->op == RS_OP_READ && wc->wr_id < l->depth &&
	    !l->chunks[wc->wr_id].done) {
		l->chunks[wc->wr_id].done = true;
		(*left)--;
		return 0;
	}
	if (wc->op != RS_OP_RECV)
		return 0;
	struct rs_msg reply;
	int rc = message_of(l, wc, &reply);
	if (rc || reply.type != RS_MSG_READ_STAGE_DONE)
		return rc;
	if (reply.status != RS_MSG_OK || reply.seq >= l->depth)
		return rs_error_set(err, RS_E_REJECTED, 0,
				    "the receiver refused to read the log: %s",
				    rs_msg_status_str(reply.status));
	const struct fetch_chunk *c = &l->chunks[reply.seq];
	return read_into(l, reply.seq, c->at, &l->grant->staging_read,
			 reply.ring_offset, c->len, err);
}

int fetch_link_round(struct fetch_link *l, const struct fetch_log *st,
		     uint64_t pos, uint64_t end, const uint8_t **bytes,
		     uint64_t *len, bool *from_pool)
{
	struct rs_error err = {0};
	unsigned n = 0, left;
	size_t at = 0;
	int rc = 0;
	*from_pool = false;
	for (; n < l->depth && pos < end && !rc; n++) {
		uint32_t clen = fetch_chunk_len(st, pos, end, l->chunk);
		l->chunks[n] =
		    (struct fetch_chunk){.pos = pos, .len = clen, .at = at};
		rc = post_chunk(l, st, n, from_pool, &err);
		pos += clen;
		at += clen;
	}
	for (left = n; !rc && left;) {
		struct rs_completion wc;
		rc = next(l, &wc, answer_ms(l));
		if (!rc)
			rc = take(l, &wc, &left, &err);
		else if (rc == RS_E_TIMEOUT)
			rc = rs_error_set(&err, RS_E_LOST, 0, "no answer");
	}
	if (rc && rc != RS_E_INTERRUPTED && err.msg[0])
		rs_verbose("%s", err.msg);
	*bytes = l->bufs;
	*len = at;
	return rc;
}
