/* A replica: its state, its connection and its grant, posting through the
 * method table and taking back what its receiver answers. */
#include "replicas/replica.h"

#include "cli/log.h"
#include "common/stats.h"
#include "common/stop_for_tests.h"
#include "connect/connect.h"
#include "error.h"
#include "methods/send_method.h"
#include "rdma/mr.h"
#include "rdma/spin.h"
#include "replicas/replica_keys.h"
#include "session/session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct replica {
	const struct ship_config *cfg;
	const struct rs_target *target;
	unsigned index;			  /* its place in the window */
	char label[RS_TARGET_LABEL_SIZE]; /* how messages name it */
	struct rs_session *rs;		  /* NULL while disconnected */
	const struct send_method *method; /* chosen at the first grant */
	uint8_t pool_uuid[16];		  /* the pool it started on */
	uint64_t log_start;		  /* its pool's data range, absolute */
	uint64_t log_end;		  /* its bytes */
	uint64_t pos_base;		  /* the log position at pool_at */
	uint64_t pool_at;		  /* bytes into the data range */
	bool replacing;	     /* writes a replacement (--truncate) */
	uint64_t replaced;   /* bytes of it its receiver holds */
	uint64_t rebase_end; /* a rebase asked at this end, or 0 */
	uint64_t rebase_sent_ns;
	struct replica_keys keys; /* its window keys, its keepalive */
	struct rs_mr *ring_mr;
	void *words; /* the method's words, per credit slot, or NULL */
	struct rs_mr *words_mr;
	/* Its session: the token to take it over after losing the
	 * connection, and the receiver's peer timeout, within which we hear
	 * from it or count the link as lost. */
	struct rs_session_token token;
	bool have_token;
	uint64_t peer_timeout_ns;
	uint64_t last_sent_ns; /* a message: a commit, a keepalive, a rebase */
	uint64_t last_confirm_ns;  /* for the stall check */
	unsigned commits_lost;	   /* batches refused since one was confirmed */
	struct send_liveness live; /* its receiver's, as heard */
	struct rs_spin spin;	   /* how long confirmations take */
	uint64_t posted_ns[SHIP_DEPTH_MAX]; /* per credit slot */
	struct send_stats stats;	    /* what it confirmed, how fast */
	char lost_why[128]; /* why its last connection was lost, or "" */
};

/* Sessions lost to a batch refused as not where the log ends, in a row
 * with no batch confirmed: more is a receiver that refuses, not a link
 * that lost commits. */
#define REPLICA_COMMITS_LOST_MAX 3

struct replica *replica_new(const struct ship_config *cfg,
			    const struct rs_target *target, unsigned index)
{
	struct replica *r = calloc(1, sizeof(*r));
	if (!r)
		return 0;
	r->cfg = cfg;
	r->target = target;
	r->index = index;
	send_stats_start(&r->stats);
	rs_target_label(target, r->label, sizeof(r->label));
	return r;
}

void replica_lost_because(struct replica *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->lost_why, sizeof(r->lost_why), fmt, ap);
	va_end(ap);
}

const char *replica_lost_why(const struct replica *r)
{
	return r->lost_why;
}

void replica_disconnect(struct replica *r)
{
	rs_mr_dereg(&r->ring_mr);
	rs_mr_dereg(&r->words_mr);
	rs_session_delete(&r->rs);
}

void replica_delete(struct replica *r)
{
	if (!r)
		return;
	replica_disconnect(r);
	free(r->words);
	free(r);
}

unsigned replica_index(const struct replica *r)
{
	return r->index;
}

const char *replica_label(const struct replica *r)
{
	return r->label;
}

const struct rs_target *replica_target(const struct replica *r)
{
	return r->target;
}

bool replica_connected(const struct replica *r)
{
	return r->rs != 0;
}

const struct send_stats *replica_stats(const struct replica *r)
{
	return &r->stats;
}

const struct rs_accept_info *replica_grant(const struct replica *r)
{
	return rs_session_grant(r->rs);
}

int replica_connect(struct replica *r, bool first, uint16_t slots,
		    int timeout_ms, struct send_hint_wait *later)
{
	r->lost_why[0] = 0;
	struct send_peer peer = {.remote = r->target,
				 .timeout_ms = timeout_ms,
				 .key = r->cfg->auth_key,
				 .takeover = r->have_token ? &r->token : 0,
				 .busy_poll = r->cfg->busy_poll,
				 .later = later};
	uint8_t flags = 0;
	if (r->cfg->truncate && r->cfg->truncate_in_place)
		flags = first ? RS_CONNECT_TRUNCATE : 0;
	else if (r->cfg->truncate) /* every connection of the replacement */
		flags = RS_CONNECT_REPLACE;
	struct rs_connect_req req = {
	    .flags = flags,
	    .method = (uint8_t)(first ? r->cfg->method : r->method->id),
	    .methods = send_methods_known()};
	/* A batch is one chain: at most CHAIN_MAX work requests. */
	return send_connect(&peer, req, slots, CHAIN_MAX, &r->rs);
}

int replica_register(struct replica *r, const struct send_window *w)
{
	struct rs_peer *peer = rs_session_peer(r->rs);
	struct rs_error err = {0};
	size_t ring_len;
	uint8_t *ring = window_ring(w, &ring_len);
	size_t words = (size_t)window_depth(w) * r->method->words_per_slot;
	if (words && !r->words)
		r->words = calloc(1, words);
	bool no_words = words && !r->words;
	if (no_words ||
	    rs_mr_reg(peer, ring, ring_len, RS_MR_LOCAL, &r->ring_mr, &err) ||
	    (words && rs_mr_reg(peer, r->words, words, RS_MR_LOCAL,
				&r->words_mr, &err))) {
		rs_err("cannot register %zu bytes of batch buffers: %s",
		       ring_len, no_words ? "out of memory" : err.msg);
		/* Our own memory the device will not take, whatever the
		 * provider said: the user's to fix (ulimit -l, --batch,
		 * --depth), exit 2 as always. */
		return RS_E_NOMEM;
	}
	return 0;
}

enum rs_method replica_method(const struct replica *r)
{
	return r->method ? r->method->id : RS_METHOD_AUTO;
}

int replica_plan(struct replica *r, enum rs_method requested,
		 struct rs_error *err)
{
	const struct rs_accept_info *info = replica_grant(r);
	const char *why_not = 0;
	if (rs_conn_can_flush(rs_session_conn(r->rs), &why_not))
		why_not = 0;
	else if (!why_not)
		why_not = "this connection cannot post RDMA FLUSH";
	if (why_not && (info->methods & RS_METHOD_BIT(RS_METHOD_FLUSH)))
		rs_verbose("the receiver offers flush; not using it: %s",
			   why_not);
	int rc = send_method_plan(info->methods, why_not, requested, &r->method,
				  err);
	if (rc)
		return rc;
	memcpy(r->pool_uuid, info->pool_uuid, sizeof(r->pool_uuid));
	r->log_start = info->start_offset;
	r->log_end = info->end_offset - info->start_offset;
	r->pos_base = info->log_base;
	return 0;
}

uint64_t replica_log_end(const struct replica *r)
{
	return r->pos_base + (r->log_end - r->pool_at);
}

uint32_t replica_batch_cap(const struct replica *r)
{
	return send_method_batch_cap(r->method, replica_grant(r));
}

int replica_check_fit(const struct replica *r, uint16_t depth,
		      uint32_t batch_max, struct rs_error *err)
{
	const struct rs_accept_info *info = replica_grant(r);
	const char *why = 0;
	if (memcmp(info->pool_uuid, r->pool_uuid, sizeof(r->pool_uuid)))
		why = "it now serves a different pool";
	else if (!send_method_offered(r->method, info))
		why = "it no longer offers the method in use";
	else if (info->credits < depth)
		why = "it allows fewer batches in flight";
	if (why)
		return rs_error_set(err, RS_E_REJECTED, 0, "%s", why);
	return send_method_check_cap(r->method, info, batch_max, err);
}

uint64_t replica_granted_end(const struct replica *r)
{
	const struct rs_accept_info *info = replica_grant(r);
	if (r->replacing)
		return r->pos_base + r->replaced;
	return info->log_base + info->write_offset_value - info->start_offset;
}

/* The completion of a probe (a keepalive's or liveness's): the
 * receiver's end is there. */
static bool took_probe(struct replica *r, const struct rs_completion *wc)
{
	if (wc->wr_id != RS_CONN_PROBE_WR_ID)
		return false;
	replica_keys_probe_answered(&r->keys);
	send_liveness_probe_back(&r->live, send_stats_now_ns());
	return true;
}

static int ask(struct replica *r, const struct rs_msg *msg, uint8_t want,
	       uint64_t timeout_ms, struct rs_msg *reply);

/* Whether its receiver grants windows to the method in use. */
static bool windowed(const struct replica *r)
{
	return r->method->id == RS_METHOD_GPSPM &&
	       (replica_grant(r)->peer_flags & RS_PEER_WINDOWS);
}

/* A key with a window from the log's head, need bytes long at least (0:
 * any). Nothing may be in flight. */
static int ask_window(struct replica *r, uint64_t need)
{
	struct rs_msg msg = {.type = RS_MSG_WINDOW, .length = need}, reply;
	/* Answered at once: silence for the peer timeout is a lost link */
	uint64_t timeout_ms = replica_grant(r)->peer_timeout_ms;
	int rc = ask(r, &msg, RS_MSG_WINDOW_DONE, timeout_ms, &reply);
	if (rc == RS_E_MALFORMED)
		rs_err("%s sent a malformed reply to a window request",
		       r->label);
	if (rc)
		return rc;
	if (reply.status != RS_MSG_OK) {
		rs_err("%s refused a memory window: %s", r->label,
		       rs_msg_status_str(reply.status));
		return RS_E_MALFORMED;
	}
	return 0;
}

int replica_started(struct replica *r)
{
	const struct rs_accept_info *info = replica_grant(r);
	r->token = info->token;
	r->have_token = true;
	r->peer_timeout_ns = (uint64_t)info->peer_timeout_ms * 1000000ull;
	r->last_sent_ns = r->last_confirm_ns = send_stats_now_ns();
	send_liveness_start(&r->live, r->last_sent_ns);
	if (!r->replacing)
		r->pos_base = info->log_base;
	r->rebase_end = 0;
	r->rebase_sent_ns = 0;
	replica_keys_start(&r->keys);
	if (!windowed(r))
		return 0;
	send_stop_for_tests_once("window-asking");
	return ask_window(r, 0);
}

/* ---- posting a batch ---- */

static struct method_ctx method_ctx_of(const struct replica *r,
				       const struct send_window *w)
{
	const struct rs_accept_info *grant = replica_grant(r);
	struct rs_mr_desc data = grant->data;
	if (grant->peer_flags & RS_PEER_WINDOWS)
		data.rkey = r->keys.ids.newest;
	return (struct method_ctx){.grant = grant,
				   .data = data,
				   .key = r->keys.ids.newest,
				   .log_start = r->log_start,
				   .pos_base = r->pos_base,
				   .pool_at = r->pool_at,
				   .w = w,
				   .inflight =
				       window_inflight_of(w, replica_index(r)),
				   .words = r->words};
}

/* Whether b fits the window of the newest key, where windows are granted:
 * its receiver registers only part of the tail for them. When it does
 * not, the next confirmation brings a key reaching further; with nothing
 * else in flight the replica asks for room (one round trip). */
static int fits_window(struct replica *r, const struct send_window *w,
		       const struct window_batch *b)
{
	if (!windowed(r))
		return 0;
	/* Behind a lone commit: its reply first (the key in use dies). */
	if (r->keys.lone_out)
		return WINDOW_POST_LATER;
	uint64_t end =
	    r->log_start + r->pool_at + (b->offset - r->pos_base) + b->length;
	if (end <= r->keys.newest_end)
		return 0;
	/* The window counts b in flight already. */
	if (window_inflight_of(w, replica_index(r)) > 1)
		return WINDOW_POST_LATER;
	uint64_t head = end - b->length;
	int rc = ask_window(r, b->length);
	if (rc)
		return rc;
	if (r->keys.newest_end < end) {
		rs_err("%s gave a window ending at %llu for a batch of %u "
		       "at %llu: it asked for room, the receiver gave none",
		       r->label, (unsigned long long)r->keys.newest_end,
		       b->length, (unsigned long long)head);
		return RS_E_MALFORMED;
	}
	return 0;
}

int replica_post(struct replica *r, const struct send_window *w,
		 const struct window_batch *b)
{
	int rc = fits_window(r, w, b);
	if (rc)
		return rc;
	struct method_ctx m = method_ctx_of(r, w);
	m.lone = windowed(r) && m.inflight == 1 &&
		 !window_more_waiting(w, replica_index(r));
	struct send_chain chain;
	chain.n = 0;
	r->method->post(&m, b, &chain);
	uint64_t now = send_stats_now_ns();
	if (r->method->posts_message)
		r->last_sent_ns = now;
	replica_keys_posted(&r->keys, m.lone); /* its commit names the key */
	r->posted_ns[window_slot_of(w, b->seq)] = now;
	/* The data and its commit go out as one chain: one doorbell. */
	return chain_post(&chain, r->rs, r->ring_mr, r->words_mr);
}

/* ---- rotation ---- */

bool replica_rotates(const struct replica *r)
{
	/* A replacement never rotates: it is not the log yet. */
	return r->rs && !r->replacing &&
	       (replica_grant(r)->peer_flags & RS_PEER_ARCHIVE);
}

bool replica_rebasing(const struct replica *r)
{
	return r->rebase_end != 0;
}

int replica_rebase(struct replica *r, uint64_t end)
{
	struct rs_msg msg = {.type = RS_MSG_REBASE,
			     .offset = r->log_start + r->pool_at +
				       (end - r->pos_base)};
	/* Nothing is in flight: the first slot is free. */
	if (rs_session_send(r->rs, 0, &msg, UINT64_MAX, RS_POST_SIGNALED))
		return RS_E_LOST;
	r->rebase_end = end;
	r->last_sent_ns = r->rebase_sent_ns = send_stats_now_ns();
	rs_verbose("%s: its pool is full at %llu bytes; asking it to archive "
		   "and start over",
		   r->label, (unsigned long long)(end - r->pos_base));
	return 0;
}

void replica_say_silence(struct replica *r, enum send_liveness_verdict v,
			 uint64_t silent_ns)
{
	unsigned long long ms = silent_ns / 1000000ull;
	if (v == SEND_PROBE)
		rs_verbose("no answer from %s for %llu ms: probing the link",
			   r->label, ms);
	else if (v == SEND_GONE)
		replica_lost_because(r,
				     "no answer for %llu ms, and none to a "
				     "probe of the link",
				     ms);
	else if (v == SEND_HUNG)
		replica_lost_because(r,
				     "no answer for %llu ms, though its "
				     "adapter answers probes of the link: "
				     "its receiver is not serving",
				     ms);
	if (v == SEND_GONE || v == SEND_HUNG)
		rs_verbose("%s: %s", r->label, r->lost_why);
}

/* ---- replacing the log (--truncate) ---- */

#define REPLICA_ASK_MS 300000 /* sealing or switching may move a pool */

/* The liveness of a receiver that owes the answer to a request sent at
 * sent_ns: probes the link when it has been silent for half the peer
 * timeout, RS_E_LOST when the probe had the other half unanswered. */
static int ask_watch(struct replica *r, uint64_t sent_ns, uint64_t now)
{
	uint64_t silent = 0;
	if (!r->peer_timeout_ns)
		return 0;
	switch (send_liveness_check(&r->live, sent_ns, now, r->peer_timeout_ns,
				    0, &silent)) {
	case SEND_PROBE:
		return replica_probe(r, now);
	case SEND_GONE:
		replica_say_silence(r, SEND_GONE, silent);
		return RS_E_LOST;
	case SEND_LIVE:
	case SEND_HUNG: /* its adapter answers: a switch may take long */
		break;
	}
	return 0;
}

/* The next completion within until, waking at least every quarter of the
 * peer timeout for ask_watch: RS_E_TIMEOUT when none came. */
static int ask_next(struct replica *r, uint64_t until, struct rs_completion *wc)
{
	uint64_t now = send_stats_now_ns();
	uint64_t wait_ns = until > now ? until - now : 0;
	if (r->peer_timeout_ns && wait_ns > r->peer_timeout_ns / 4)
		wait_ns = r->peer_timeout_ns / 4;
	enum rs_wait_result res = rs_conn_next_completion(
	    rs_session_conn(r->rs), wc, (int)(wait_ns / 1000000ull) + 1);
	if (res == RS_WAIT_TIMEOUT)
		return RS_E_TIMEOUT;
	return res == RS_WAIT_COMPLETION && wc->ok ? 0 : RS_E_LOST;
}

/* Sends msg on the first slot (nothing is in flight) and waits up to
 * timeout_ms for its reply of type want. A long wait (a pool sealed or
 * switched) is watched as a stream is: silent for half the peer timeout,
 * the link is probed, and a probe unanswered for the other half means the
 * receiver's host is gone (a busy receiver's adapter answers it). */
static int ask(struct replica *r, const struct rs_msg *msg, uint8_t want,
	       uint64_t timeout_ms, struct rs_msg *reply)
{
	if (rs_session_send(r->rs, 0, msg, UINT64_MAX, RS_POST_SIGNALED))
		return RS_E_LOST;
	uint64_t sent = send_stats_now_ns();
	uint64_t until = sent + timeout_ms * 1000000ull;
	for (;;) {
		uint64_t now = send_stats_now_ns();
		if (now >= until)
			return RS_E_TIMEOUT;
		int rc = ask_watch(r, sent, now);
		if (rc)
			return rc;
		struct rs_completion wc;
		rc = ask_next(r, until, &wc);
		if (rc == RS_E_TIMEOUT)
			continue;
		if (rc)
			return rc;
		uint16_t slot;
		if (took_probe(r, &wc))
			continue;
		send_liveness_heard(&r->live, send_stats_now_ns());
		if (wc.op != RS_OP_RECV)
			continue;
		send_liveness_answered(&r->live, send_stats_now_ns());
		if (rs_session_take(r->rs, &wc, reply, &slot, 0))
			return RS_E_MALFORMED;
		replica_keys_heard(&r->keys, reply, send_stats_now_ns());
		if (reply->type == want)
			return 0;
		if (reply->type != RS_MSG_KEEPALIVE_DONE)
			return RS_E_MALFORMED;
	}
}

int replica_replace(struct replica *r, bool carry_on, uint64_t expected,
		    struct rs_msg *reply)
{
	struct rs_msg msg = {.type = RS_MSG_REPLACE,
			     .offset = carry_on ? 1 : 0,
			     .length = expected};
	int rc = ask(r, &msg, RS_MSG_REPLACE_DONE, REPLICA_ASK_MS, reply);
	if (rc || reply->status != RS_MSG_OK)
		return rc;
	const struct rs_accept_info *info = replica_grant(r);
	if (reply->offset < info->start_offset ||
	    reply->offset > info->end_offset ||
	    reply->length > info->end_offset - reply->offset)
		return RS_E_MALFORMED;
	r->replacing = true;
	r->pos_base = 0;
	r->pool_at = reply->offset - info->start_offset;
	r->replaced = reply->length;
	return 0;
}

int replica_switch(struct replica *r, uint64_t end, struct rs_msg *reply)
{
	struct rs_msg msg = {.type = RS_MSG_SWITCH,
			     .offset = r->log_start + r->pool_at +
				       (end - r->pos_base)};
	send_stop_for_tests_once("switch-asking");
	return ask(r, &msg, RS_MSG_SWITCH_DONE, REPLICA_ASK_MS, reply);
}

/* The answer to a rebase: the pool starts at the position the log ended
 * at, or is full for good. */
static enum replica_news rebased(struct replica *r, const struct rs_msg *msg,
				 struct replica_report *out)
{
	uint64_t end = r->rebase_end;
	r->rebase_end = 0;
	r->rebase_sent_ns = 0;
	r->last_confirm_ns = send_stats_now_ns();
	if (!end) {
		rs_err("%s sent an answer to a rebase it was not asked for",
		       r->label);
		return REPLICA_REFUSED;
	}
	if (msg->status != RS_MSG_OK) {
		out->status = msg->status;
		return REPLICA_FULL;
	}
	if (msg->offset != end) { /* the log's end: no byte lost, none new */
		rs_err("%s started its pool over at log position %llu, not "
		       "%llu where its log ends",
		       r->label, (unsigned long long)msg->offset,
		       (unsigned long long)end);
		return REPLICA_REFUSED;
	}
	r->pos_base = end;
	out->offset = end;
	return REPLICA_REBASED;
}

/* ---- what comes back ---- */

/* A message from the receiver: *msg to hand to the method, or the news it
 * is on its own (NOTHING for a keepalive's reply, REFUSED for bytes that
 * are no message). */
static bool take_message(struct replica *r, const struct rs_completion *wc,
			 struct rs_msg *msg, enum replica_news *news)
{
	uint16_t slot;
	struct rs_error err = {0};
	*news = REPLICA_NOTHING;
	if (rs_session_take(r->rs, wc, msg, &slot, &err)) {
		rs_err("%s sent a malformed reply (%s)", r->label, err.msg);
		*news = REPLICA_REFUSED;
		return false;
	}
	replica_keys_heard(&r->keys, msg, send_stats_now_ns());
	return msg->type != RS_MSG_KEEPALIVE_DONE;
}

/* A message that is the replica's own business, not its method's. */
static bool own_message(struct replica *r, const struct rs_msg *msg,
			struct replica_report *out, enum replica_news *news)
{
	if (msg->type != RS_MSG_REBASE_DONE)
		return false;
	*news = rebased(r, msg, out);
	return true;
}

/* What the method makes of a completion (and its message). */
static enum replica_news method_news(struct replica *r,
				     const struct send_window *w,
				     const struct method_event *ev,
				     struct replica_report *out)
{
	struct method_ctx m = method_ctx_of(r, w);
	if (r->method->then) {
		struct send_chain chain;
		chain.n = 0;
		r->method->then(&m, ev, &chain);
		if (chain.n &&
		    chain_post(&chain, r->rs, r->ring_mr, r->words_mr)) {
			replica_lost_because(r, "a write could not be posted");
			return REPLICA_LINK_LOST;
		}
	}
	struct method_confirm confirm;
	struct rs_error err = {0};
	int rc = r->method->take(&m, ev, &confirm, &err);
	if (rc == RS_E_LOST) {
		/* Commits lost on the way are the link's; lost again and again
		 * with nothing confirmed between, they are no link's fault. */
		if (++r->commits_lost > REPLICA_COMMITS_LOST_MAX) {
			rs_err("%s %s, %u times with nothing committed "
			       "between: the refusal stands",
			       r->label, err.msg, r->commits_lost);
			return REPLICA_REFUSED;
		}
		rs_warn("%s %s", r->label, err.msg);
		replica_lost_because(r, "a commit was lost on the way");
		return REPLICA_LINK_LOST;
	}
	if (rc == RS_E_MALFORMED)
		rs_err("%s sent a malformed reply (%s)", r->label, err.msg);
	else if (rc < 0)
		rs_err("%s %s", r->label, err.msg);
	if (rc < 0)
		return REPLICA_REFUSED;
	if (rc == 0)
		return REPLICA_NOTHING;
	out->seq = confirm.seq;
	out->offset = confirm.offset;
	return REPLICA_CONFIRMED;
}

static uint64_t oldest_unanswered(const struct replica *r,
				  const struct send_window *w);

static enum replica_news on_completion(struct replica *r,
				       const struct send_window *w,
				       const struct rs_completion *wc,
				       struct replica_report *out)
{
	if (!wc->ok) {
		rs_verbose("completion error: %s", wc->status);
		replica_lost_because(r, "a work request failed (%s)",
				     wc->status);
		return REPLICA_LINK_LOST;
	}
	/* A probe's return first: it says when that probe went out. */
	if (took_probe(r, wc))
		return REPLICA_NOTHING;
	send_liveness_heard(&r->live, send_stats_now_ns());
	if (wc->op == RS_OP_RECV)
		send_liveness_answered_after(&r->live, send_stats_now_ns(),
					     oldest_unanswered(r, w));
	struct rs_msg msg;
	struct method_event ev = {.op = wc->op, .wr_id = wc->wr_id};
	enum replica_news news;
	if (wc->op == RS_OP_RECV) {
		if (!take_message(r, wc, &msg, &news) ||
		    own_message(r, &msg, out, &news))
			return news;
		ev.msg = &msg;
	}
	return method_news(r, w, &ev, out);
}

static enum replica_news completions_failed(struct replica *r)
{
	replica_lost_because(r, "its completion queue failed");
	return REPLICA_LINK_LOST;
}

static enum replica_news closed(struct replica *r)
{
	replica_lost_because(r, "the connection was closed (by the receiver "
				"or its adapter)");
	return REPLICA_LINK_LOST;
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
		else if (res == RS_WAIT_ERROR)
			out->news = completions_failed(r);
		else if (rs_conn_next_event(c) == RS_CONN_EVENT_CLOSED)
			out->news = closed(r);
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
		out->news = completions_failed(r);
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
	r->commits_lost = 0;
	rs_spin_observe(&r->spin, latency);
	send_stats_commit(&r->stats, b->length, latency, now_ns);
}

/* ---- keepalives and the peer timeout ---- */

uint64_t replica_keepalive_at(const struct replica *r)
{
	/* A stream's commit requests tell the receiver we are there (apm
	 * sends none: it needs keepalives while streaming too); while a
	 * rebase is out, its program is asked. */
	if (!r->rs)
		return 0;
	if (r->rebase_sent_ns)
		return replica_keys_rebase_keepalive_at(
		    &r->keys, r->rebase_sent_ns, r->last_sent_ns,
		    r->peer_timeout_ns);
	return replica_keys_keepalive_at(&r->keys, r->last_sent_ns,
					 r->peer_timeout_ns);
}

bool replica_keepalive_due(const struct replica *r, uint64_t now_ns)
{
	uint64_t at = replica_keepalive_at(r);
	return at && now_ns >= at;
}

/* A keepalive is a probe of the link (rs_conn_probe), answered by the
 * receiver's adapter without waking the receiver, which probes a silent
 * sender itself; a message to name a new window key, or, while a rebase
 * is out, one naming none, which the receiver's program answers: a seal
 * that takes long is no silence. Signaled: an idle link posts nothing
 * else that would reclaim its send-queue entry. */
int replica_send_keepalive(struct replica *r, uint64_t now_ns)
{
	int rc;
	uint32_t key = 0;
	if (r->rebase_sent_ns)
		replica_keys_asked(&r->keys, now_ns);
	else
		key = replica_keys_keepalive_sent(&r->keys, now_ns);
	if (key || r->rebase_sent_ns) {
		struct rs_msg ka = {.type = RS_MSG_KEEPALIVE, .key = key};
		rc = rs_session_send(r->rs, rs_session_control_slot(r->rs), &ka,
				     UINT64_MAX, RS_POST_SIGNALED);
	} else {
		rc = rs_conn_probe(rs_session_conn(r->rs), RS_POST_SIGNALED);
		/* its return says what went before reached the adapter */
		if (!rc)
			send_liveness_probed(&r->live, now_ns);
	}
	if (rc) {
		replica_lost_because(r, "a keepalive could not be posted");
		return RS_E_LOST;
	}
	r->last_sent_ns = now_ns;
	return 0;
}

/* The oldest thing the receiver has not answered, or 0. */
static uint64_t oldest_unanswered(const struct replica *r,
				  const struct send_window *w)
{
	uint64_t since = r->keys.keepalive_ns;
	if (r->rebase_sent_ns && (!since || r->rebase_sent_ns < since))
		since = r->rebase_sent_ns;
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

enum send_liveness_verdict replica_liveness(const struct replica *r,
					    const struct send_window *w,
					    uint64_t now_ns,
					    const struct rs_stall *stall,
					    uint64_t *for_ns)
{
	return send_liveness_check(&r->live, oldest_unanswered(r, w), now_ns,
				   r->peer_timeout_ns, stall, for_ns);
}

int replica_probe(struct replica *r, uint64_t now_ns)
{
	if (rs_conn_probe(rs_session_conn(r->rs), RS_POST_SIGNALED)) {
		replica_lost_because(r, "a probe of the link could not be "
					"posted");
		return RS_E_LOST;
	}
	send_liveness_probed(&r->live, now_ns);
	return 0;
}

void replica_fds(const struct replica *r, int *completion_fd, int *event_fd)
{
	rs_conn_fds(rs_session_conn(r->rs), completion_fd, event_fd);
}
