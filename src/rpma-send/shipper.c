#include "shipper.h"

#include "cli/exit_code.h"
#include "cli/log.h"
#include "connect.h"
#include "error.h"
#include "rdma/mr.h"
#include "rdma/spin.h"
#include "session/session.h"
#include "window.h"

#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SHIP_WAIT_MS 1000 /* longest sleep: then look at the clock */
#define SHIP_FOLLOW_MS 20 /* --follow at the end: look again after */
#define SHIP_BACKOFF_FIRST_MS 100
#define SHIP_BACKOFF_MAX_MS 5000

/* APM's two words per batch slot, after the batches in one region. */
struct apm_words {
	uint64_t new_offset; /* the write offset we store */
	uint64_t flush_read; /* where flush reads land */
};

struct shipper {
	const struct ship_config *cfg;
	char receiver[RS_TARGET_LABEL_SIZE]; /* how messages name it */
	struct send_input *in;
	struct rs_session *rs;
	enum rs_method method;
	uint8_t pool_uuid[16]; /* the pool we started on */
	uint64_t log_start;    /* its data range */
	struct send_window w;
	struct rs_mr *ring_mr;
	struct apm_words *words;
	struct rs_mr *words_mr;
	struct send_stats *stats;
	struct send_progress progress;
	uint64_t last_input_ns;		/* for the idle flush */
	uint64_t last_confirm_ns;	/* for the stall check */
	uint64_t input_paused_until_ns; /* --follow at the end of the file */
	/* The session: its token, to take it over after losing the
	 * connection, and the receiver's peer timeout, within which we hear
	 * from it or count the link as lost. */
	struct rs_session_token token;
	bool have_token;
	uint64_t peer_timeout_ns;
	uint64_t last_sent_ns;	    /* a batch or a keepalive */
	uint64_t keepalive_sent_ns; /* one unanswered, or 0 */
	struct rs_spin spin;	    /* how long confirmations take */
	int rc;			    /* the exit code once the window is done */
};

static const struct rs_accept_info *grant_of(const struct shipper *s)
{
	return rs_session_grant(s->rs);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, 0);
}

/* ---- posting a batch: the window's link ---- */

/* Sends a commit request (GPSPM and staged) for b. */
static int post_commit_request(struct shipper *s, const struct window_batch *b,
			       uint64_t ring_offset)
{
	struct rs_msg msg = {
	    .type = s->method == RS_METHOD_STAGED ? RS_MSG_STAGED_COMMIT
						  : RS_MSG_COMMIT,
	    .seq = b->seq,
	    .offset = b->offset,
	    .length = b->length,
	    .ring_offset = ring_offset,
	};
	/* The reply says the request arrived; one send in `depth` is signaled
	 * only to reclaim send-queue entries. */
	unsigned flags =
	    b->seq % s->w.depth == s->w.depth - 1u ? RS_POST_SIGNALED : 0;
	return rs_session_send(s->rs, (uint16_t)(b->seq % s->w.depth), &msg,
			       UINT64_MAX, flags);
}

/* APM: the read after the data write makes it persistent (DDIO off); the
 * fenced offset write waits for that read; the last read makes the offset
 * persistent and its completion is the commit. */
static int post_apm_commit(struct shipper *s, const struct window_batch *b)
{
	uint32_t i = b->seq % s->w.depth;
	const struct rs_mr_desc *word = &grant_of(s)->write_offset;
	struct rs_conn *c = rs_session_conn(s->rs);
	size_t at = i * sizeof(struct apm_words);
	size_t flush = at + offsetof(struct apm_words, flush_read);
	s->words[i].new_offset = htole64(b->offset + b->length);
	if (rs_conn_read(c, s->words_mr, flush, word, 0, 8, UINT64_MAX,
			 RS_POST_MORE) ||
	    rs_conn_write(c, word, 0, s->words_mr, at, 8, UINT64_MAX,
			  RS_POST_FENCE | RS_POST_MORE))
		return RS_E_LOST;
	return rs_conn_read(c, s->words_mr, flush, word, 0, 8, b->seq,
			    RS_POST_SIGNALED);
}

static int link_post(void *ctx, struct window_batch *b)
{
	struct shipper *s = ctx;
	const struct rs_accept_info *info = grant_of(s);
	const struct rs_mr_desc *dst = &info->data;
	uint64_t dst_offset = b->offset - info->start_offset, ring_offset = 0;
	if (s->method == RS_METHOD_STAGED) {
		ring_offset =
		    (uint64_t)(b->seq % s->w.depth) * info->staging_slot_size;
		dst = &info->staging;
		dst_offset = ring_offset;
	}
	b->posted_ns = send_stats_now_ns();
	s->last_sent_ns = b->posted_ns;
	send_stats_posted(s->stats, b->posted_ns);
	size_t src = (size_t)(b->data - s->w.ring);
	/* The data and its commit go out as one chain: one doorbell. */
	if (rs_conn_write(rs_session_conn(s->rs), dst, dst_offset, s->ring_mr,
			  src, b->length, UINT64_MAX, RS_POST_MORE))
		return RS_E_LOST;
	if (s->method == RS_METHOD_APM)
		return post_apm_commit(s, b);
	return post_commit_request(s, b, ring_offset);
}

static void link_committed(void *ctx, const struct window_batch *b)
{
	struct shipper *s = ctx;
	s->last_confirm_ns = send_stats_now_ns();
	send_stats_commit(s->stats, b->length,
			  s->last_confirm_ns - b->posted_ns);
	rs_spin_observe(&s->spin, s->last_confirm_ns - b->posted_ns);
	send_progress_update(&s->progress, s->stats);
}

/* ---- connecting ---- */

/* First connection: pick the method and size the window from the grant. */
static int plan(struct shipper *s)
{
	const struct rs_accept_info *info = grant_of(s);
	struct rs_error err = {0};
	if (rs_method_choose(info->methods, s->cfg->method, &s->method, &err)) {
		rs_err("%s", err.msg);
		return RS_EXIT_REFUSED;
	}
	uint64_t used = info->write_offset_value - info->start_offset;
	if (s->cfg->expect_offset && used != s->cfg->expected_used) {
		rs_err("the remote log changed since it was checked (it holds "
		       "%llu bytes, not %llu); run --resume again",
		       (unsigned long long)used,
		       (unsigned long long)s->cfg->expected_used);
		return RS_EXIT_NOT_PREFIX;
	}
	uint32_t batch_max = s->cfg->batch_size;
	if (s->method == RS_METHOD_STAGED &&
	    batch_max > info->staging_slot_size)
		batch_max = info->staging_slot_size;
	uint32_t depth = s->cfg->depth;
	if (depth == SHIP_DEPTH_AUTO) {
		depth = SHIP_INFLIGHT_BYTES / batch_max;
		if (depth < SHIP_DEPTH_MIN)
			depth = SHIP_DEPTH_MIN;
	}
	if (depth > info->credits)
		depth = info->credits;
	if (window_connected(&s->w, (uint16_t)depth, batch_max,
			     info->write_offset_value, info->end_offset)) {
		rs_err("cannot allocate %zu bytes of batch buffers",
		       (size_t)depth * batch_max);
		return RS_EXIT_USAGE;
	}
	memcpy(s->pool_uuid, info->pool_uuid, sizeof(s->pool_uuid));
	s->log_start = info->start_offset;
	rs_verbose("method %s, %u batches of %u bytes in flight, remote log "
		   "at %llu of %llu bytes",
		   rs_method_name(s->method), depth, batch_max,
		   (unsigned long long)used,
		   (unsigned long long)(info->end_offset - info->start_offset));
	return RS_EXIT_OK;
}

/* A later connection must still fit what is in flight. */
static int check_still_compatible(struct shipper *s)
{
	const struct rs_accept_info *info = grant_of(s);
	const char *why = 0;
	if (memcmp(info->pool_uuid, s->pool_uuid, sizeof(s->pool_uuid)))
		why = "it now serves a different pool";
	else if (!(info->methods & RS_METHOD_BIT(s->method)))
		why = "it no longer offers the method in use";
	else if (info->credits < s->w.depth)
		why = "it allows fewer batches in flight";
	else if (s->method == RS_METHOD_STAGED &&
		 info->staging_slot_size < s->w.batch_max)
		why = "its staging slots are smaller";
	else if (info->write_offset_value < s->w.committed_offset ||
		 info->write_offset_value > s->w.next_offset)
		why = "its log was changed by someone else";
	if (why) {
		rs_err("cannot resume on %s after reconnecting: %s; %llu input "
		       "bytes were committed",
		       s->receiver, why,
		       (unsigned long long)window_committed_input(&s->w));
		return RS_EXIT_REFUSED;
	}
	return RS_EXIT_OK;
}

/* The ring and the APM words, registered for this connection. */
static int register_buffers(struct shipper *s)
{
	struct rs_peer *peer = rs_session_peer(s->rs);
	struct rs_error err = {0};
	size_t words = (size_t)s->w.depth * sizeof(*s->words);
	if (!s->words)
		s->words = calloc(s->w.depth, sizeof(*s->words));
	if (!s->words ||
	    rs_mr_reg(peer, s->w.ring, s->w.ring_len, RS_MR_LOCAL, &s->ring_mr,
		      &err) ||
	    rs_mr_reg(peer, s->words, words, RS_MR_LOCAL, &s->words_mr, &err)) {
		rs_err("cannot register %zu bytes of batch buffers: %s",
		       s->w.ring_len, s->words ? err.msg : "out of memory");
		return RS_EXIT_USAGE;
	}
	return RS_EXIT_OK;
}

/* A granted session: its token, its peer timeout, a fresh clock. */
static void session_started(struct shipper *s)
{
	const struct rs_accept_info *info = grant_of(s);
	s->token = info->token;
	s->have_token = true;
	s->peer_timeout_ns = (uint64_t)info->peer_timeout_ms * 1000000ull;
	s->last_sent_ns = s->last_confirm_ns = send_stats_now_ns();
	s->keepalive_sent_ns = 0;
}

static void link_down(struct shipper *s)
{
	rs_mr_dereg(&s->ring_mr);
	rs_mr_dereg(&s->words_mr);
	rs_session_delete(&s->rs);
}

static int link_up(struct shipper *s, bool first, bool *transient)
{
	struct send_peer peer = {.remote = &s->cfg->remote,
				 .timeout_ms = s->cfg->connect_timeout_ms,
				 .key = s->cfg->auth_key,
				 .takeover = s->have_token ? &s->token : 0,
				 .busy_poll = s->cfg->busy_poll};
	struct rs_connect_req req = {
	    .flags = first && s->cfg->truncate ? RS_CONNECT_TRUNCATE : 0,
	    .method = (uint8_t)(first ? s->cfg->method : s->method)};
	/* Up to four work requests per batch (APM). */
	uint16_t slots = first ? s->cfg->depth : s->w.depth;
	if (slots == SHIP_DEPTH_AUTO)
		slots =
		    SHIP_DEPTH_MAX; /* the window is sized after the grant */
	int rc = send_connect(&peer, req, slots, 4, &s->rs, transient);
	if (!rc)
		rc = first ? plan(s) : check_still_compatible(s);
	if (!rc)
		rc = register_buffers(s);
	if (!rc)
		session_started(s);
	return rc;
}

/* Connects, retrying a lost or busy receiver up to --retry times with
 * doubling back-off. */
static int connect_with_retry(struct shipper *s, bool first)
{
	unsigned backoff = SHIP_BACKOFF_FIRST_MS;
	for (unsigned attempt = 0;; attempt++) {
		bool transient = false;
		int rc = link_up(s, first, &transient);
		if (!rc || !transient || attempt >= s->cfg->retries ||
		    send_stop_requested)
			return rc;
		link_down(s);
		rs_info("retrying in %u ms (%u of %u)", backoff, attempt + 1,
			s->cfg->retries);
		sleep_ms(backoff);
		backoff = backoff * 2 > SHIP_BACKOFF_MAX_MS
			      ? SHIP_BACKOFF_MAX_MS
			      : backoff * 2;
	}
}

/* RECONNECTING: connects again and hands the window the remote log's end,
 * so it resends exactly the uncommitted tail. Returns an exit code. */
static int recover(struct shipper *s)
{
	link_down(s);
	uint64_t committed = window_committed_input(&s->w);
	if (s->cfg->retries == 0 || send_stop_requested) {
		rs_err("connection to %s lost after committing %llu input "
		       "bytes",
		       s->receiver, (unsigned long long)committed);
		return RS_EXIT_CONNECT;
	}
	rs_info("connection to %s lost after committing %llu input bytes; "
		"reconnecting",
		s->receiver, (unsigned long long)committed);
	int rc = connect_with_retry(s, false);
	if (rc) {
		rs_err("connection to %s lost after committing %llu input "
		       "bytes",
		       s->receiver, (unsigned long long)committed);
		return rc;
	}
	uint64_t remote = grant_of(s)->write_offset_value;
	window_reconnected(&s->w, remote);
	if (s->w.error == WINDOW_DIVERGED) {
		rs_err("cannot resume: the remote log ends inside a batch "
		       "(offset %llu); %llu input bytes were committed",
		       (unsigned long long)remote,
		       (unsigned long long)window_committed_input(&s->w));
		return RS_EXIT_REFUSED;
	}
	rs_info("reconnected to %s at %llu committed input bytes; sending %llu "
		"uncommitted bytes again",
		s->receiver, (unsigned long long)window_committed_input(&s->w),
		(unsigned long long)(s->w.next_offset - s->w.committed_offset));
	s->last_confirm_ns = send_stats_now_ns();
	return RS_EXIT_OK;
}

/* ---- events ---- */

/* A commit reply (GPSPM, staged) or APM's last flush read. */
static void on_completion(struct shipper *s, const struct rs_completion *wc)
{
	if (!wc->ok) {
		rs_verbose("completion error: %s", wc->status);
		window_lost(&s->w);
		return;
	}
	if (wc->op == RS_OP_READ && s->method == RS_METHOD_APM) {
		uint32_t seq = (uint32_t)wc->wr_id;
		const struct window_batch *b =
		    &s->w.batches[s->w.oldest_seq % s->w.depth];
		window_confirmed(&s->w, seq, b->offset + b->length);
		return;
	}
	if (wc->op != RS_OP_RECV)
		return;
	struct rs_msg reply;
	uint16_t slot;
	struct rs_error err = {0};
	int rc = rs_session_take(s->rs, wc, &reply, &slot, &err);
	if (rc == 0 && reply.type == RS_MSG_KEEPALIVE_DONE) {
		s->keepalive_sent_ns = 0;
		return;
	}
	if (rc == 0 && reply.type != RS_MSG_COMMIT_DONE)
		rs_error_set(&err, RS_E_MALFORMED, 0,
			     "unexpected message type");
	if (err.code) {
		rs_err("the receiver sent a malformed reply (%s)", err.msg);
		s->rc = RS_EXIT_REFUSED;
		window_stop(&s->w);
	} else if (reply.status != RS_MSG_OK) {
		rs_err("the receiver refused batch %u: %s", reply.seq,
		       rs_msg_status_str(reply.status));
		s->rc = RS_EXIT_REFUSED;
		window_stop(&s->w);
	} else {
		window_confirmed(&s->w, reply.seq, reply.offset);
	}
}

/* Takes every completion and connection event that is there, without
 * waiting. */
static void take_events(struct shipper *s)
{
	struct rs_conn *c = rs_session_conn(s->rs);
	for (;;) {
		enum window_state st = s->w.state;
		if (st != WINDOW_STREAMING && st != WINDOW_DRAINING)
			return;
		struct rs_completion wc;
		enum rs_wait_result r = rs_conn_next_completion(c, &wc, 0);
		if (r == RS_WAIT_TIMEOUT)
			return;
		if (r == RS_WAIT_COMPLETION)
			on_completion(s, &wc);
		else if (r == RS_WAIT_ERROR ||
			 rs_conn_next_event(c) == RS_CONN_EVENT_CLOSED)
			window_lost(&s->w);
	}
}

/* True when the input has at least one more byte: the log is then full. */
static bool input_has_more(struct send_input *in)
{
	uint8_t probe;
	ssize_t n;
	while ((n = send_input_read(in, &probe, 1)) == 0 && in->follow &&
	       !send_stop_requested)
		sleep_ms(SHIP_FOLLOW_MS);
	return n > 0;
}

/* No room left in the remote log: the end, and an error if the input had
 * more (reported once the last batches are confirmed). */
static void log_full(struct shipper *s)
{
	window_input_end(&s->w, send_stats_now_ns());
	if (input_has_more(s->in))
		s->rc = RS_EXIT_LOG_FULL;
}

static bool readable(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	return poll(&pfd, 1, 0) > 0;
}

/* STREAMING: moves what the input has into the open batch. Returns true
 * when it did something, so the loop goes on without sleeping. */
static bool take_input(struct shipper *s, uint64_t now)
{
	uint32_t room;
	uint8_t *space = window_space(&s->w, &room);
	if (!space || now < s->input_paused_until_ns)
		return false;
	if (room == 0) {
		log_full(s);
		return true;
	}
	int fd = send_input_wait_fd(s->in);
	if (fd >= 0 && !readable(fd))
		return false;
	ssize_t n = send_input_read(s->in, space, room);
	if (n > 0) {
		s->last_input_ns = now;
		window_filled(&s->w, (uint32_t)n, now);
	} else if (n < 0 && errno != EINTR) {
		rs_err("cannot read %s: %s", s->in->name, strerror(errno));
		s->rc = RS_EXIT_USAGE;
		window_input_end(&s->w, now);
	} else if (n == 0 && s->in->eof) {
		window_input_end(&s->w, now);
	} else if (n == 0) { /* --follow at the end: commit what we have */
		window_flush(&s->w, now);
		s->input_paused_until_ns = now + SHIP_FOLLOW_MS * 1000000ull;
	}
	return n != 0 || s->in->eof;
}

/* An idle connection still proves both ends alive: a keepalive a quarter
 * of the peer timeout after the last thing we sent, one at a time. */
static uint64_t keepalive_due(const struct shipper *s)
{
	return s->last_sent_ns + s->peer_timeout_ns / 4;
}

static void send_keepalive(struct shipper *s, uint64_t now)
{
	struct rs_msg ka = {.type = RS_MSG_KEEPALIVE};
	uint16_t slot = rs_session_control_slot(s->rs);
	/* Signaled: an idle link posts nothing else that would reclaim its
	 * send-queue entry. */
	if (rs_session_send(s->rs, slot, &ka, UINT64_MAX, RS_POST_SIGNALED)) {
		window_lost(&s->w);
		return;
	}
	s->last_sent_ns = s->keepalive_sent_ns = now;
}

/* The oldest thing the receiver has not answered, or 0. */
static uint64_t oldest_unanswered(const struct shipper *s)
{
	uint64_t since = s->keepalive_sent_ns;
	if (window_inflight(&s->w) > 0) {
		const struct window_batch *oldest =
		    &s->w.batches[s->w.oldest_seq % s->w.depth];
		uint64_t b = oldest->posted_ns > s->last_confirm_ns
				 ? oldest->posted_ns
				 : s->last_confirm_ns;
		if (!since || b < since)
			since = b;
	}
	return since;
}

/* The idle flush, keepalives, the dead-receiver check, a stop request. */
static void check_timers(struct shipper *s, uint64_t now)
{
	if (send_stop_requested && s->w.state == WINDOW_STREAMING)
		window_input_end(&s->w, now);
	uint64_t idle = (uint64_t)s->cfg->flush_interval_ms * 1000000ull;
	if (s->w.fill > 0 && now - s->last_input_ns >= idle)
		window_flush(&s->w, now);
	if (s->w.state != WINDOW_STREAMING && s->w.state != WINDOW_DRAINING)
		return;
	if (!s->keepalive_sent_ns && window_inflight(&s->w) == 0 &&
	    now >= keepalive_due(s))
		send_keepalive(s, now);
	/* A silent link (a cable pulled, a host gone) reports no error for a
	 * long time: not hearing back within the peer timeout counts as
	 * lost, as the receiver counts us. */
	uint64_t since = oldest_unanswered(s);
	if (since && now > since && now - since >= s->peer_timeout_ns) {
		rs_verbose("no answer from the receiver for %llu ms",
			   (unsigned long long)((now - since) / 1000000ull));
		window_lost(&s->w);
	}
}

/* Milliseconds until the next timer, at most SHIP_WAIT_MS. */
static int next_timeout(const struct shipper *s, uint64_t now)
{
	uint64_t wait = SHIP_WAIT_MS * 1000000ull;
	uint64_t idle = (uint64_t)s->cfg->flush_interval_ms * 1000000ull;
	if (s->w.fill > 0) {
		uint64_t due = s->last_input_ns + idle;
		wait = due > now && due - now < wait ? due - now : 0;
	}
	if (s->input_paused_until_ns > now &&
	    s->input_paused_until_ns - now < wait)
		wait = s->input_paused_until_ns - now;
	uint64_t ka = keepalive_due(s);
	if (!s->keepalive_sent_ns && window_inflight(&s->w) == 0 && ka > now &&
	    ka - now < wait)
		wait = ka - now;
	return s->cfg->busy_poll ? 0 : (int)((wait + 999999) / 1000000);
}

/* Adaptive waiting: while the oldest batch's confirmation is due soon,
 * look for it without sleeping (a wake-up can cost more than the round
 * trip). True when a completion came and was taken. */
static bool spin_for_confirmation(struct shipper *s)
{
	if (s->cfg->busy_poll || window_inflight(&s->w) == 0)
		return false;
	const struct window_batch *oldest =
	    &s->w.batches[s->w.oldest_seq % s->w.depth];
	uint64_t until = rs_spin_until(&s->spin, oldest->posted_ns);
	struct rs_conn *c = rs_session_conn(s->rs);
	while (send_stats_now_ns() < until) {
		struct rs_completion wc;
		enum rs_wait_result r = rs_conn_poll_completion(c, &wc);
		if (r == RS_WAIT_COMPLETION) {
			on_completion(s, &wc);
			return true;
		}
		if (r == RS_WAIT_ERROR) {
			window_lost(&s->w);
			return true;
		}
	}
	return false;
}

/* Sleeps until a completion, a connection event, input or a timer. */
static void wait_for_event(struct shipper *s, uint64_t now)
{
	if (spin_for_confirmation(s))
		return;
	struct pollfd pfd[3];
	int comp_fd, cm_fd;
	rs_conn_fds(rs_session_conn(s->rs), &comp_fd, &cm_fd);
	pfd[0] = (struct pollfd){.fd = comp_fd, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = cm_fd, .events = POLLIN};
	nfds_t n = 2;
	uint32_t room;
	int in_fd = send_input_wait_fd(s->in);
	if (window_space(&s->w, &room) && in_fd >= 0 &&
	    now >= s->input_paused_until_ns)
		pfd[n++] = (struct pollfd){.fd = in_fd, .events = POLLIN};
	poll(pfd, n, next_timeout(s, now));
}

static void stream(struct shipper *s)
{
	while (s->w.state != WINDOW_DONE) {
		if (s->w.state == WINDOW_RECONNECTING) {
			int rc = recover(s);
			if (rc) {
				s->rc = rc;
				window_stop(&s->w);
			}
			continue;
		}
		take_events(s);
		uint64_t now = send_stats_now_ns();
		check_timers(s, now);
		if (s->w.state == WINDOW_STREAMING && take_input(s, now))
			continue;
		if (s->w.state == WINDOW_STREAMING ||
		    s->w.state == WINDOW_DRAINING)
			wait_for_event(s, now);
	}
}

/* The exit code of a finished stream, reporting what went wrong. */
static int finish(struct shipper *s)
{
	uint64_t committed = window_committed_input(&s->w);
	if (s->w.error == WINDOW_OUT_OF_ORDER) {
		rs_err("the receiver confirmed a commit out of order after "
		       "%llu input bytes; stopping",
		       (unsigned long long)committed);
		return RS_EXIT_REFUSED;
	}
	if (s->rc == RS_EXIT_LOG_FULL)
		rs_err("remote log full: committed %llu input bytes; the rest "
		       "did not fit (rewind it with --truncate or use a larger "
		       "pool)",
		       (unsigned long long)committed);
	return s->rc;
}

int ship_run(const struct ship_config *cfg, struct send_input *in,
	     struct ship_result *result)
{
	struct shipper s;
	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	rs_target_label(&cfg->remote, s.receiver, sizeof(s.receiver));
	s.in = in;
	s.stats = &result->stats;
	struct window_link link = {&s, link_post, link_committed};
	window_init(&s.w, &link);
	send_stats_start(s.stats);
	send_progress_init(&s.progress, cfg->progress, cfg->progress_forced);
	int rc = connect_with_retry(&s, true);
	if (!rc) {
		stream(&s);
		rc = finish(&s);
	}
	send_progress_finish(&s.progress, s.stats);
	result->method = s.method;
	result->committed = window_committed_input(&s.w);
	result->first_offset = s.w.first_offset;
	if (s.w.ring) {
		result->log_used = s.w.committed_offset - s.log_start;
		result->log_size = s.w.end_offset - s.log_start;
	}
	link_down(&s);
	window_fini(&s.w);
	free(s.words);
	return rc;
}
