#include "replica.h"

#include "cli/exit_code.h"
#include "cli/log.h"
#include "connect.h"
#include "error.h"
#include "rdma/mr.h"
#include "stats.h"

#include <endian.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* APM's two words per batch slot, in a region of their own. */
struct apm_words {
	uint64_t new_offset; /* the write offset we store */
	uint64_t flush_read; /* where flush reads land */
};

void replica_init(struct replica *r, const struct ship_config *cfg,
		  const struct rs_target *target, unsigned index)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->target = target;
	r->index = index;
	send_stats_start(&r->stats);
	rs_target_label(target, r->label, sizeof(r->label));
}

void replica_disconnect(struct replica *r)
{
	rs_mr_dereg(&r->ring_mr);
	rs_mr_dereg(&r->words_mr);
	rs_session_delete(&r->rs);
}

void replica_fini(struct replica *r)
{
	replica_disconnect(r);
	free(r->words);
	r->words = 0;
}

const struct rs_accept_info *replica_grant(const struct replica *r)
{
	return rs_session_grant(r->rs);
}

int replica_connect(struct replica *r, bool first, uint16_t slots,
		    int timeout_ms, bool *transient)
{
	struct send_peer peer = {.remote = r->target,
				 .timeout_ms = timeout_ms,
				 .key = r->cfg->auth_key,
				 .takeover = r->have_token ? &r->token : 0,
				 .busy_poll = r->cfg->busy_poll};
	struct rs_connect_req req = {
	    .flags = first && r->cfg->truncate ? RS_CONNECT_TRUNCATE : 0,
	    .method = (uint8_t)(first ? r->cfg->method : r->method)};
	/* Up to four work requests per batch (APM). */
	return send_connect(&peer, req, slots, 4, &r->rs, transient);
}

int replica_register(struct replica *r, const struct send_window *w)
{
	struct rs_peer *peer = rs_session_peer(r->rs);
	struct rs_error err = {0};
	size_t ring_len;
	uint8_t *ring = window_ring(w, &ring_len);
	size_t words = (size_t)window_depth(w) * sizeof(*r->words);
	if (!r->words)
		r->words = calloc(window_depth(w), sizeof(*r->words));
	if (!r->words ||
	    rs_mr_reg(peer, ring, ring_len, RS_MR_LOCAL, &r->ring_mr, &err) ||
	    rs_mr_reg(peer, r->words, words, RS_MR_LOCAL, &r->words_mr, &err)) {
		rs_err("cannot register %zu bytes of batch buffers: %s",
		       ring_len, r->words ? err.msg : "out of memory");
		return RS_EXIT_USAGE;
	}
	return RS_EXIT_OK;
}

uint64_t replica_granted_end(const struct replica *r)
{
	const struct rs_accept_info *info = replica_grant(r);
	return info->write_offset_value - info->start_offset;
}

void replica_started(struct replica *r)
{
	const struct rs_accept_info *info = replica_grant(r);
	r->token = info->token;
	r->have_token = true;
	r->peer_timeout_ns = (uint64_t)info->peer_timeout_ms * 1000000ull;
	r->last_sent_ns = r->last_confirm_ns = send_stats_now_ns();
	r->keepalive_sent_ns = 0;
}

/* ---- posting a batch ---- */

/* Sends a commit request (GPSPM and staged) for b. */
static int post_commit_request(struct replica *r, const struct send_window *w,
			       const struct window_batch *b,
			       uint64_t ring_offset)
{
	struct rs_msg msg = {
	    .type = r->method == RS_METHOD_STAGED ? RS_MSG_STAGED_COMMIT
						  : RS_MSG_COMMIT,
	    .seq = b->seq,
	    .offset = r->log_start + b->offset,
	    .length = b->length,
	    .ring_offset = ring_offset,
	};
	/* The reply says the request arrived; one send in `depth` is signaled
	 * only to reclaim send-queue entries. */
	uint32_t slot = window_slot_of(w, b->seq);
	unsigned flags = slot == window_depth(w) - 1u ? RS_POST_SIGNALED : 0;
	return rs_session_send(r->rs, (uint16_t)slot, &msg, UINT64_MAX, flags);
}

/* APM: the read after the data write makes it persistent (DDIO off); the
 * fenced offset write waits for that read; the last read makes the offset
 * persistent and its completion is the commit. */
static int post_apm_commit(struct replica *r, const struct send_window *w,
			   const struct window_batch *b)
{
	uint32_t i = window_slot_of(w, b->seq);
	const struct rs_mr_desc *word = &replica_grant(r)->write_offset;
	struct rs_conn *c = rs_session_conn(r->rs);
	size_t at = i * sizeof(struct apm_words);
	size_t flush = at + offsetof(struct apm_words, flush_read);
	r->words[i].new_offset = htole64(r->log_start + b->offset + b->length);
	if (rs_conn_read(c, r->words_mr, flush, word, 0, 8, UINT64_MAX,
			 RS_POST_MORE) ||
	    rs_conn_write(c, word, 0, r->words_mr, at, 8, UINT64_MAX,
			  RS_POST_FENCE | RS_POST_MORE))
		return RS_E_LOST;
	return rs_conn_read(c, r->words_mr, flush, word, 0, 8, b->seq,
			    RS_POST_SIGNALED);
}

int replica_post(struct replica *r, const struct send_window *w,
		 const struct window_batch *b)
{
	const struct rs_accept_info *info = replica_grant(r);
	const struct rs_mr_desc *dst = &info->data;
	uint64_t dst_offset = b->offset, ring_offset = 0;
	if (r->method == RS_METHOD_STAGED) {
		ring_offset = (uint64_t)window_slot_of(w, b->seq) *
			      info->staging_slot_size;
		dst = &info->staging;
		dst_offset = ring_offset;
	}
	r->last_sent_ns = send_stats_now_ns();
	r->posted_ns[window_slot_of(w, b->seq)] = r->last_sent_ns;
	size_t src = window_ring_offset(w, b);
	/* The data and its commit go out as one chain: one doorbell. */
	if (rs_conn_write(rs_session_conn(r->rs), dst, dst_offset, r->ring_mr,
			  src, b->length, UINT64_MAX, RS_POST_MORE))
		return RS_E_LOST;
	if (r->method == RS_METHOD_APM)
		return post_apm_commit(r, w, b);
	return post_commit_request(r, w, b, ring_offset);
}

/* ---- what comes back ---- */

/* A commit reply (GPSPM, staged): news, or NOTHING for a keepalive's. */
static enum replica_news on_reply(struct replica *r,
				  const struct rs_completion *wc,
				  struct replica_report *out)
{
	struct rs_msg reply;
	uint16_t slot;
	struct rs_error err = {0};
	int rc = rs_session_take(r->rs, wc, &reply, &slot, &err);
	if (rc == 0 && reply.type == RS_MSG_KEEPALIVE_DONE) {
		r->keepalive_sent_ns = 0;
		return REPLICA_NOTHING;
	}
	if (rc == 0 && reply.type != RS_MSG_COMMIT_DONE)
		rs_error_set(&err, RS_E_MALFORMED, 0,
			     "unexpected message type");
	if (err.code) {
		rs_err("%s sent a malformed reply (%s)", r->label, err.msg);
		return REPLICA_REFUSED;
	}
	if (reply.status != RS_MSG_OK) {
		rs_err("%s refused batch %u: %s", r->label, reply.seq,
		       rs_msg_status_str(reply.status));
		return REPLICA_REFUSED;
	}
	out->seq = reply.seq;
	out->offset = reply.offset - r->log_start;
	return REPLICA_CONFIRMED;
}

static enum replica_news on_completion(struct replica *r,
				       const struct send_window *w,
				       const struct rs_completion *wc,
				       struct replica_report *out)
{
	if (!wc->ok) {
		rs_verbose("completion error: %s", wc->status);
		return REPLICA_LINK_LOST;
	}
	if (wc->op == RS_OP_READ && r->method == RS_METHOD_APM) {
		/* APM's last read: that batch is committed. */
		out->seq = (uint32_t)wc->wr_id;
		const struct window_batch *b = window_batch(w, out->seq);
		out->offset = b->offset + b->length;
		return REPLICA_CONFIRMED;
	}
	if (wc->op != RS_OP_RECV)
		return REPLICA_NOTHING;
	return on_reply(r, wc, out);
}

bool replica_next(struct replica *r, const struct send_window *w,
		  struct replica_report *out)
{
	struct rs_conn *c = rs_session_conn(r->rs);
	for (;;) {
		struct rs_completion wc;
		enum rs_wait_result res = rs_conn_next_completion(c, &wc, 0);
		if (res == RS_WAIT_TIMEOUT)
			return false;
		if (res == RS_WAIT_COMPLETION)
			out->news = on_completion(r, w, &wc, out);
		else if (res == RS_WAIT_ERROR ||
			 rs_conn_next_event(c) == RS_CONN_EVENT_CLOSED)
			out->news = REPLICA_LINK_LOST;
		else
			out->news = REPLICA_NOTHING;
		if (out->news != REPLICA_NOTHING)
			return true;
	}
}

uint64_t replica_spin_until(const struct replica *r,
			    const struct send_window *w)
{
	const struct window_batch *oldest = window_oldest_of(w, r->index);
	if (r->cfg->busy_poll || !r->rs || !oldest)
		return 0;
	return rs_spin_until(&r->spin,
			     r->posted_ns[window_slot_of(w, oldest->seq)]);
}

bool replica_poll(struct replica *r, const struct send_window *w,
		  struct replica_report *out)
{
	struct rs_completion wc;
	switch (rs_conn_poll_completion(rs_session_conn(r->rs), &wc)) {
	case RS_WAIT_COMPLETION:
		out->news = on_completion(r, w, &wc, out);
		return true;
	case RS_WAIT_ERROR:
		out->news = REPLICA_LINK_LOST;
		return true;
	default:
		return false;
	}
}

void replica_confirmed(struct replica *r, const struct send_window *w,
		       const struct window_batch *b, uint64_t now_ns)
{
	uint64_t latency = now_ns - r->posted_ns[window_slot_of(w, b->seq)];
	r->last_confirm_ns = now_ns;
	rs_spin_observe(&r->spin, latency);
	send_stats_commit(&r->stats, b->length, latency, now_ns);
}

/* ---- keepalives and the peer timeout ---- */

uint64_t replica_keepalive_at(const struct replica *r,
			      const struct send_window *w)
{
	/* Batches in flight are answered anyway; one keepalive at a time. */
	if (!r->rs || r->keepalive_sent_ns || window_inflight_of(w, r->index))
		return 0;
	return r->last_sent_ns + r->peer_timeout_ns / 4;
}

bool replica_keepalive_due(const struct replica *r, const struct send_window *w,
			   uint64_t now_ns)
{
	uint64_t at = replica_keepalive_at(r, w);
	return at && now_ns >= at;
}

int replica_send_keepalive(struct replica *r, uint64_t now_ns)
{
	struct rs_msg ka = {.type = RS_MSG_KEEPALIVE};
	uint16_t slot = rs_session_control_slot(r->rs);
	/* Signaled: an idle link posts nothing else that would reclaim its
	 * send-queue entry. */
	if (rs_session_send(r->rs, slot, &ka, UINT64_MAX, RS_POST_SIGNALED))
		return RS_E_LOST;
	r->last_sent_ns = r->keepalive_sent_ns = now_ns;
	return 0;
}

uint64_t replica_oldest_unanswered(const struct replica *r,
				   const struct send_window *w)
{
	uint64_t since = r->keepalive_sent_ns;
	const struct window_batch *oldest = window_oldest_of(w, r->index);
	if (oldest) {
		uint64_t posted = r->posted_ns[window_slot_of(w, oldest->seq)];
		uint64_t b =
		    posted > r->last_confirm_ns ? posted : r->last_confirm_ns;
		if (!since || b < since)
			since = b;
	}
	return since;
}

void replica_fds(const struct replica *r, int *completion_fd, int *event_fd)
{
	rs_conn_fds(rs_session_conn(r->rs), completion_fd, event_fd);
}
