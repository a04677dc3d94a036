#include "log/admission.h"

#include "cli/log.h"
#include "cli/stall.h"
#include "error.h"
#include "methods/recv_method.h"
#include "metrics/clock.h"
#include "pool/offset_word.h"
#include "pool/stop_at.h"
#include "rdma/conn.h"
#include "rotation/rotation.h"
#include "session/session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

void recv_admission_init(struct recv_admission *adm,
			 const struct recv_worker_config *cfg,
			 struct recv_counters *counters,
			 struct recv_log_counters *log_counters,
			 struct recv_pmem_target *target,
			 struct recv_rotation *rotation,
			 struct recv_held_token *held)
{
	memset(adm, 0, sizeof(*adm));
	adm->held = held;
	adm->cfg = cfg;
	adm->counters = counters;
	adm->log_counters = log_counters;
	adm->target = target;
	adm->rotation = rotation;
	adm->watch_epfd = -1;
	recv_log_memory_init(&adm->mem, &cfg->exposure, target);
}

/* A sender is gone (ended or refused): its seat, if it held one, is
 * free at once. */
static void seat_gone(struct recv_admission *adm, struct recv_seat *seat)
{
	if (recv_seat_release(&adm->counters->senders, seat))
		recv_counters_disconnected(adm->log_counters);
}

/* A sender that came without a seat (to take a session over) and needs
 * one of its own now, under max-senders like any request: false when
 * every seat is taken (the session it came for ended meanwhile and others
 * took the seats). */
static bool seat_taken(struct recv_admission *adm, struct recv_seat *seat)
{
	if (seat->held)
		return true;
	enum recv_seat_claim c =
	    recv_seats_claim(&adm->counters->senders,
			     atomic_load(&adm->counters->max_senders), false);
	if (c == RECV_SEAT_NONE)
		return false;
	recv_seat_hold(seat, c);
	recv_counters_connected(adm->log_counters);
	return true;
}

void recv_admission_fini(struct recv_admission *adm)
{
	adm->finishing = true;
	while (adm->sessions)
		recv_admission_end(adm, adm->sessions);
	recv_log_memory_fini(&adm->mem);
}

/* The log's name in messages, or its pool for `rpma-recv POOL`. */
static const char *log_label(const struct recv_admission *adm)
{
	return adm->cfg->name[0] ? adm->cfg->name : adm->cfg->pool_path;
}

static const struct recv_method *method_of(const struct recv_sender *a)
{
	return recv_sender_memory_method(&a->mem);
}

/* Whether m's writer stores the write offset itself (apm, flush). */
static bool commits_alone(const struct recv_method *m)
{
	return m && (RS_METHOD_BIT(m->id) & RS_METHOD_SENDER_COMMITS);
}

/* Whether --busy-poll spins for this session: one that sends a message per
 * commit or request (a gpspm or staged writer, a reader). An apm or flush
 * writer sends none: spinning for it would only burn a core. */
static bool spins_for(const struct recv_sender *a)
{
	return a->adm->cfg->busy_poll && !commits_alone(method_of(a));
}

/* A write offset a writer that commits alone stored broke a rule: said
 * with the log's name, and counted. The offset is put back by then. */
static void report_broken(const struct recv_admission *adm, const char *peer,
			  const struct recv_offset_seen *seen)
{
	const struct recv_pmem_target *t = adm->target;
	rs_err("log %s: sender %s stored write offset %llu, %s (its data "
	       "range is %llu to %llu); its session is ended and the write "
	       "offset put back to %llu, the last one checked",
	       log_label(adm), peer, (unsigned long long)seen->word,
	       recv_offset_rule_text(seen->rule), (unsigned long long)t->start,
	       (unsigned long long)t->end,
	       (unsigned long long)recv_pmem_target_write_offset(t));
	recv_counters_offset_put_back(adm->log_counters);
}

/* Before a grant says where the log ends: a writer that commits alone
 * and serves now has its word checked and made persistent (one that broke
 * a rule ends that writer, whose end puts it back); one about to be granted
 * finds the word settled and the floor at the log's end, so that nothing it
 * stores takes back what was committed before it. */
static void offset_before_grant(struct recv_sender *a)
{
	struct recv_admission *adm = a->adm;
	struct recv_sender *h = adm->holder;
	if (h && h != a && commits_alone(method_of(h))) {
		recv_session_count_offset(&h->s);
		return;
	}
	if (h != a || !commits_alone(method_of(a)))
		return;
	struct recv_offset_seen seen = recv_offset_word_settle(adm->target);
	if (seen.rule != RECV_OFFSET_OK)
		report_broken(adm, "an earlier writer", &seen);
	recv_offset_floor_raise(adm->target);
}

/* What the sender may use, as of now: truncates first when asked, and
 * hands out a new session token. */
static int grant(struct recv_sender *a, struct rs_accept_info *info)
{
	struct recv_admission *adm = a->adm;
	struct rs_error err = {0};
	int rc = rs_auth_random(a->token.bytes, sizeof(a->token.bytes), &err);
	if (rc) {
		rs_err("sender %s: %s", a->s.peer, err.msg);
		return rc;
	}
	a->granted = true;
	offset_before_grant(a);
	if (a->req.flags & RS_CONNECT_TRUNCATE) {
		recv_rotation_empty(adm->rotation);
		recv_admission_pool_rewound(adm);
		rs_info("log %s truncated at the request of %s", log_label(adm),
			a->s.peer);
	}
	rc = recv_sender_memory_describe(&a->mem, rs_session_conn(a->rs), info);
	if (rc)
		return rc;
	info->log_base = recv_rotation_base(adm->rotation);
	if (recv_rotation_enabled(adm->rotation))
		info->peer_flags |= RS_PEER_ARCHIVE;
	info->token = a->token;
	if (adm->holder == a)
		recv_held_token_set(adm->held, &a->token);
	info->peer_timeout_ms = adm->cfg->peer_timeout_ms;
	rs_verbose("sender %s connected at write offset %llu", a->s.peer,
		   (unsigned long long)info->write_offset_value);
	return 0;
}

/* Where the session's time went on this side (-v). */
static void say_times(const struct recv_sender *a)
{
	if (rs_log_get_level() < RS_LOG_VERBOSE)
		return;
	char line[256];
	recv_session_times_format(&a->s.times, line, sizeof(line));
	rs_verbose("sender %s: %s", a->s.peer, line);
}

/* windowed: whether the session had windows (dropped by now). */
static void log_session_end(const struct recv_admission *adm,
			    const struct recv_sender *a, bool windowed)
{
	if (a->taken_over) {
		rs_verbose("sender %s: old connection ended after %llu commits",
			   a->s.peer, (unsigned long long)a->s.commits);
	} else if (a->s.served) {
		const struct recv_pmem_target *t = adm->target;
		rs_info("sender %s done: %llu commits, %llu bytes, log %s at "
			"%llu of %llu bytes",
			a->s.peer, (unsigned long long)a->s.commits,
			(unsigned long long)a->s.bytes, log_label(adm),
			(unsigned long long)(recv_pmem_target_write_offset(t) -
					     t->start),
			(unsigned long long)(t->end - t->start));
		if (windowed && a->s.keys.reach_ns_max)
			recv_sender_memory_say_reach(&a->mem,
						     a->s.keys.reach_bytes_max,
						     a->s.keys.reach_ns_max);
		/* Why (a sender that did not say goodbye: which side gave
		 * up, and on what). */
		if (a->s.why[0])
			rs_verbose("sender %s: its session ended: %s",
				   a->s.peer, a->s.why);
		say_times(a);
	} else if (a->s.why[0]) {
		rs_verbose("sender %s: %s", a->s.peer, a->s.why);
	}
}

void recv_admission_watch(struct recv_admission *adm, int epfd, void *owner,
			  const struct rs_stall *stall)
{
	adm->watch_epfd = epfd;
	adm->watch_owner = owner;
	adm->stall = stall;
}

/* Adds a's descriptors to the thread's epoll set, or removes them. */
static void watch_session(const struct recv_admission *adm,
			  const struct recv_sender *a, int op)
{
	if (adm->watch_epfd < 0 || !a->rs)
		return;
	int fd[2];
	rs_conn_fds(rs_session_conn(a->rs), &fd[0], &fd[1]);
	for (int i = 0; i < 2; i++) {
		struct epoll_event ev = {.events = EPOLLIN,
					 .data.ptr = adm->watch_owner};
		if (epoll_ctl(adm->watch_epfd, op, fd[i], &ev) &&
		    op == EPOLL_CTL_ADD)
			rs_err("sender %s: cannot wait for its connection: %s",
			       a->s.peer, strerror(errno));
	}
}

/* The log's writer is gone: when it committed alone, what it stored last
 * is settled (adopted, or put back and said). */
static void settle_writer(struct recv_admission *adm, struct recv_sender *a)
{
	struct recv_offset_seen seen = recv_session_settle_offset(&a->s);
	if (seen.rule != RECV_OFFSET_OK)
		report_broken(adm, a->s.peer, &seen);
}

void recv_admission_end(struct recv_admission *adm, struct recv_sender *a)
{
	bool windowed = a->mem.windows != 0;
	a->s.times.ended_ns = recv_now_ns();
	if (windowed)
		recv_session_windows_end(&a->s);
	if (a->s.served && !a->taken_over)
		atomic_fetch_add(&adm->counters->served, 1);
	/* The windows go first: a bound window holds its queue pair (rxe
	 * would wait for it forever). Then the queue pair: no write of this
	 * connection lands after this returns, which a takeover relies on,
	 * and the log's writer's last word is settled once it is gone. */
	recv_sender_memory_drop_windows(&a->mem);
	watch_session(adm, a, EPOLL_CTL_DEL);
	rs_session_delete(&a->rs);
	recv_sender_memory_drop_keys(&a->mem, !adm->finishing);
	a->s.times.freed_ns = recv_now_ns();
	if (adm->holder == a)
		settle_writer(adm, a);
	log_session_end(adm, a, windowed);
	recv_sender_memory_release(&a->mem);
	for (struct recv_sender **p = &adm->sessions; *p; p = &(*p)->next) {
		if (*p == a) {
			*p = a->next;
			break;
		}
	}
	if (adm->holder == a) {
		adm->holder = 0;
		recv_held_token_clear(adm->held);
		/* Its sender did not come back for it: forgotten, the log
		 * keeps its content. */
		if (adm->gen.active && !a->taken_over)
			rs_info("log %s: the replacement %s began is "
				"abandoned; the log keeps its content",
				log_label(adm), a->s.peer);
		if (!a->taken_over)
			adm->gen.active = false;
	}
	adm->nsessions--;
	if (!adm->nsessions) /* the senders gone: their memory goes too */
		recv_pmem_target_release_pages(adm->target);
	seat_gone(adm, &a->seat);
	memset(&a->rules.key, 0, sizeof(a->rules.key));
	free(a);
}

static bool is_writer(const struct rs_connect_req *req)
{
	return !(req->flags & RS_CONNECT_VERIFY);
}

/* A writer still in its auth challenge has no token yet: a request's
 * token of zeros never matches it. */
static bool presents_token_of(const struct rs_connect_req *req,
			      const struct recv_sender *holder)
{
	return holder && holder->granted &&
	       (req->flags & RS_CONNECT_TAKEOVER) &&
	       !memcmp(&req->token, &holder->token, sizeof(holder->token));
}

/* The sender of `a` is back on a new connection: its old one ends first,
 * and its seat passes to the new one (one that came without a seat and
 * finds the old session gone takes one of its own). A verifier holds
 * nothing. */
static int take_over(struct recv_admission *adm, struct recv_sender *a)
{
	if (!is_writer(&a->req))
		return 0;
	struct recv_sender *old = adm->holder;
	if (old && old != a) {
		if (!presents_token_of(&a->req, old))
			return RS_E_BUSY; /* another holds it meanwhile */
		/* Admitted before its writer asked for a rotation, answered
		 * its challenge while the rotation waits: the log is the old
		 * writer's until it is over (a grant must say where it ends).
		 */
		if (recv_rotation_rebasing(adm->rotation)) {
			rs_info("refusing sender %s: its log %s is being "
				"rotated; it may take its session over once "
				"that is done",
				a->s.peer, log_label(adm));
			return RS_E_BUSY;
		}
		rs_info("sender %s takes its session over from %s", a->s.peer,
			old->s.peer);
		old->taken_over = true;
		recv_seat_pass(&adm->counters->senders, &old->seat, &a->seat);
		recv_admission_end(adm, old);
		recv_stop_at("takeover-old-ended");
	}
	if (!seat_taken(adm, &a->seat))
		return RS_E_BUSY;
	adm->holder = a;
	return 0;
}

/* ---- the link of a recv_session: the real connection ---- */

static int link_check_auth(void *ctx, const struct rs_msg *msg,
			   struct rs_error *err)
{
	struct recv_sender *a = ctx;
	return rs_session_check_auth(a->rs, msg, err);
}

/* After a right answer: a sender taking its session over gets it now,
 * and its queue pair what its grant allows (nothing before). */
static int link_send_grant(void *ctx)
{
	struct recv_sender *a = ctx;
	struct rs_accept_info info;
	struct rs_error err = {0};
	int rc = take_over(a->adm, a);
	if (!rc)
		rc = grant(a, &info);
	if (!rc && rs_session_set_access(
		       a->rs, recv_sender_memory_qp_access(&a->mem), &err)) {
		rs_err("sender %s: %s", a->s.peer, err.msg);
		rc = err.code;
	}
	return rc ? rc : rs_session_send_grant(a->rs, &info);
}

static int link_reply(void *ctx, uint16_t slot, const struct rs_msg *reply,
		      bool signaled)
{
	struct recv_sender *a = ctx;
	return rs_session_send(a->rs, slot, reply, UINT32_MAX,
			       signaled ? RS_POST_SIGNALED : 0);
}

static int link_window(void *ctx, uint64_t head, uint64_t need, bool reset,
		       struct recv_window_binding *b)
{
	struct recv_sender *a = ctx;
	return recv_sender_memory_window(&a->mem, rs_session_conn(a->rs), head,
					 need, reset, b);
}

static int link_probe(void *ctx)
{
	struct recv_sender *a = ctx;
	return rs_conn_probe(rs_session_conn(a->rs), RS_POST_SIGNALED);
}

static int64_t link_stalled_ms(void *ctx, int64_t since_ms)
{
	struct recv_sender *a = ctx;
	const struct rs_stall *st = a->adm->stall;
	if (!st || since_ms < 0)
		return 0;
	return (int64_t)(rs_stall_since(st, (uint64_t)since_ms * 1000000ull) /
			 1000000ull);
}

static void link_rewound(void *ctx)
{
	struct recv_sender *a = ctx;
	recv_admission_pool_rewound(a->adm);
}

void recv_admission_pool_rewound(struct recv_admission *adm)
{
	for (struct recv_sender *a = adm->sessions; a; a = a->next)
		recv_sender_memory_prefix_ends(&a->mem);
}

#define RECV_HANDSHAKE_MS 5000 /* to complete the connection, to answer */

/* The session's configuration from the checked request. A writer's method
 * is the one it picks from what it is granted, by the same rule; a verifier
 * reads, through a ring of its own where it has one, and commits nothing. */
static struct recv_session_config session_config(const struct recv_sender *a)
{
	const struct recv_admission *adm = a->adm;
	bool writer = is_writer(&a->req);
	uint64_t ring_len = recv_exposure_ring_len(&adm->cfg->exposure);
	return (struct recv_session_config){
	    .target = adm->target,
	    .method = method_of(a),
	    .windows = recv_sender_memory_through_windows(&a->mem),
	    .staging = recv_exposure_staging(a->mem.exposure),
	    .rotation = adm->rotation,
	    .gen = &a->adm->gen,
	    .replace = (a->req.flags & RS_CONNECT_REPLACE) != 0,
	    .read_ring = {.base = a->mem.read_ring,
			  .length = a->mem.read_ring ? ring_len : 0},
	    .verify = !writer,
	    .auth = a->rules.has_key,
	    .credits = adm->cfg->exposure.slots,
	    .deadline_ms = RECV_HANDSHAKE_MS,
	    .peer_timeout_ms = adm->cfg->peer_timeout_ms,
	    .counters = adm->log_counters,
	};
}

static struct recv_sender *session_new(struct recv_admission *adm,
				       const struct recv_handover *h,
				       struct recv_device_exposure *d)
{
	struct recv_sender *a = calloc(1, sizeof(*a));
	if (!a)
		return 0;
	a->adm = adm;
	a->req = h->req;
	a->rules = h->rules;
	a->asked_ns = h->asked_ns;
	snprintf(a->s.peer, sizeof(a->s.peer), "%s", h->peer);
	recv_sender_memory_init(&a->mem, &adm->mem, d, &a->req,
				a->rules.methods, a->s.peer);
	if (recv_sender_memory_prepare(&a->mem, h->conn)) {
		recv_sender_memory_release(&a->mem);
		free(a);
		return 0;
	}
	struct recv_session_config cfg = session_config(a);
	struct recv_session_link link = {
	    .ctx = a,
	    .check_auth = link_check_auth,
	    .send_grant = link_send_grant,
	    .reply = link_reply,
	    .window =
		recv_sender_memory_through_windows(&a->mem) ? link_window : 0,
	    .probe = link_probe,
	    .stalled_ms = link_stalled_ms,
	    .rewound = link_rewound,
	};
	recv_session_init(&a->s, &cfg, &link, h->peer, recv_now_ms());
	a->next = adm->sessions;
	adm->sessions = a;
	adm->nsessions++;
	return a;
}

static void refuse_hinted(struct recv_admission *adm, struct recv_handover *h,
			  uint8_t reason, uint8_t methods, uint16_t retry_ms)
{
	struct rs_reject_info info = {.version = h->req.version,
				      .reason = reason,
				      .methods = methods,
				      .retry_ms = retry_ms};
	rs_session_refuse_with(&h->conn, &info);
	recv_counters_refused(adm->log_counters, recv_refusal_of(reason));
	seat_gone(adm, &h->seat);
}

static void refuse(struct recv_admission *adm, struct recv_handover *h,
		   uint8_t reason, uint8_t methods)
{
	refuse_hinted(adm, h, reason, methods, 0);
}

/* The connection could not be set up: said, with how long its request
 * waited. A sender that gave up waiting withdrew it: found only now when
 * it did so after the log's thread took the request (withdrawn() found
 * nothing then), it is no failure here, and said only with -v. */
static void setup_failed(const struct recv_sender *a,
			 const struct rs_error *err)
{
	unsigned long long ms = (recv_now_ns() - a->asked_ns) / 1000000ull;
	if (rs_conn_withdrawn_error(err))
		rs_verbose("sender %s gave up on its request after %llu ms, "
			   "while it was set up: dropped",
			   a->s.peer, ms);
	else
		rs_err("sender %s: %s (its request waited %llu ms)", a->s.peer,
		       err->msg, ms);
}

/* Accepts a checked request: the session starts ADMITTED. Without a key
 * the grant goes with the accept, so a writer holds the log from now;
 * with one, after its answer (a sender taking over: only then). Nothing
 * is decided (a takeover, a truncation) before its connection is set up. */
static void accept_session(struct recv_admission *adm, struct recv_handover *h,
			   struct recv_device_exposure *d)
{
	uint64_t began = recv_now_ns();
	struct recv_sender *a = session_new(adm, h, d);
	if (!a) {
		refuse(adm, h, RS_REJECT_INTERNAL, 0);
		return;
	}
	a->seat = h->seat; /* the session holds it from now */
	h->seat.held = false;
	a->s.times.asked_ns = a->asked_ns;
	a->s.times.admitted_ns = began;
	struct rs_accept_info info;
	struct rs_session_accept acc = {
	    .version = h->req.version,
	    .peer = a->mem.peer,
	    .slots = adm->cfg->exposure.slots,
	    .busy_poll = spins_for(a),
	    /* nothing until it holds a grant */
	    .access =
		a->rules.has_key ? 0 : recv_sender_memory_qp_access(&a->mem),
	    .key = a->rules.has_key ? &a->rules.key : 0,
	    .grant = &info,
	    .presented = &h->req.token};
	struct rs_error err = {0};
	if (rs_session_prepare(&h->conn, &acc, &a->rs, &err)) {
		setup_failed(a, &err);
		recv_admission_end(adm, a);
		return;
	}
	bool granted_now = !acc.key;
	if (granted_now && (take_over(adm, a) || grant(a, &info))) {
		rs_session_refuse_prepared(&a->rs, RS_REJECT_INTERNAL);
		recv_admission_end(adm, a);
		return;
	}
	if (!granted_now && is_writer(&h->req) &&
	    !presents_token_of(&h->req, adm->holder))
		adm->holder = a;
	if (rs_session_answer(&a->rs, &acc, &err)) {
		setup_failed(a, &err);
		recv_admission_end(adm, a);
		return;
	}
	/* The receiver's part of the sender's wait for its answer, and of
	 * it the setting up. */
	uint64_t now = recv_now_ns();
	a->s.times.answered_ns = now;
	rs_verbose("sender %s: accepted %llu ms after its request was handed "
		   "over (%llu ms setting it up)",
		   a->s.peer,
		   (unsigned long long)((now - a->asked_ns) / 1000000ull),
		   (unsigned long long)((now - began) / 1000000ull));
	watch_session(adm, a, EPOLL_CTL_ADD);
}

/* Why a request cannot be served now, or NULL. */
static const char *busy_reason(const struct recv_admission *adm,
			       const struct rs_connect_req *req)
{
	if (is_writer(req) && adm->holder &&
	    !presents_token_of(req, adm->holder))
		return "busy";
	if (adm->nsessions >= RECV_LOG_SESSIONS_MAX)
		return "too many connections";
	return 0;
}

void recv_admission_refuse(struct recv_admission *adm, struct recv_handover *h,
			   uint8_t reason, uint16_t retry_ms)
{
	refuse_hinted(adm, h, reason, 0, retry_ms);
}

/* Its sender gave up on it before its log's thread came to it (a host
 * short of CPU: the request waited past the sender's connect timeout):
 * nothing is set up for it, its seat is free at once, and no queue pair
 * is tried (rdma_cm would refuse it: EINVAL). */
static bool withdrawn(struct recv_admission *adm, struct recv_handover *h)
{
	if (!rs_conn_withdrawn(h->conn))
		return false;
	rs_verbose(
	    "sender %s gave up on its request after %llu ms: dropped", h->peer,
	    (unsigned long long)((recv_now_ns() - h->asked_ns) / 1000000ull));
	rs_conn_delete(&h->conn);
	seat_gone(adm, &h->seat);
	return true;
}

void recv_admission_admit(struct recv_admission *adm, struct recv_handover *h)
{
	if (withdrawn(adm, h))
		return;
	/* Routed to take over a session that ended since: it counts like
	 * any request from now, under max-senders too. */
	if (!h->seat.held && !presents_token_of(&h->req, adm->holder) &&
	    !seat_taken(adm, &h->seat)) {
		rs_warn("refusing sender %s: the session it came to take over "
			"has ended, and max-senders' seats are taken",
			h->peer);
		refuse_hinted(adm, h, RS_REJECT_LIMIT, 0, 0);
		return;
	}
	const char *busy = busy_reason(adm, &h->req);
	if (busy) {
		rs_info("refusing sender %s: %s with %s", h->peer, busy,
			adm->holder ? adm->holder->s.peer : "others");
		refuse(adm, h, RS_REJECT_BUSY, 0);
		return;
	}
	struct recv_device_exposure *d =
	    recv_log_memory_expose_on(&adm->mem, h->conn);
	if (!d) {
		refuse(adm, h, RS_REJECT_INTERNAL, 0);
		return;
	}
	uint8_t methods = recv_log_memory_offered(d, &h->req, h->rules.methods);
	if (is_writer(&h->req) && h->req.method == RS_METHOD_AUTO &&
	    !recv_log_memory_usable(d, &h->req, h->rules.methods)) {
		char offered[64], can[64];
		rs_err("refusing sender %s: this log offers %s, it can do %s",
		       h->peer,
		       rs_method_list(methods, offered, sizeof(offered)),
		       rs_method_list(h->req.methods, can, sizeof(can)));
		refuse(adm, h, RS_REJECT_METHOD, methods);
		return;
	}
	if (h->req.method != RS_METHOD_AUTO &&
	    !(methods & RS_METHOD_BIT(h->req.method))) {
		rs_err("refusing sender %s: it asks for method %s, which this "
		       "log does not offer%s",
		       h->peer, rs_method_name(h->req.method),
		       h->req.flags & RS_CONNECT_REPLACE
			   ? " for replacing its content"
			   : "");
		refuse(adm, h, RS_REJECT_METHOD, methods);
		return;
	}
	accept_session(adm, h, d);
}

bool recv_admission_watching_head(const struct recv_admission *adm)
{
	if (!adm->holder || !commits_alone(method_of(adm->holder)))
		return false;
	for (const struct recv_sender *a = adm->sessions; a; a = a->next)
		if (a->s.parked.on)
			return true;
	return false;
}

unsigned recv_admission_timer_ms(const struct recv_admission *adm,
				 unsigned busy_ms)
{
	for (const struct recv_sender *a = adm->sessions; a; a = a->next)
		if (a->s.state != RECV_SESSION_SERVING || a->s.parked.on)
			return busy_ms;
	/* Only probes fall due (or nothing: no session), a few per peer
	 * timeout: an eighth of it late at most. */
	int64_t ms = adm->cfg->peer_timeout_ms / 8;
	if (ms < busy_ms)
		return busy_ms;
	return ms > RECV_QUIET_TIMER_MS ? RECV_QUIET_TIMER_MS : (unsigned)ms;
}

bool recv_admission_rebasing(const struct recv_admission *adm)
{
	for (const struct recv_sender *a = adm->sessions; a; a = a->next)
		if (a->s.rebasing.on)
			return true;
	return false;
}

bool recv_admission_spins(const struct recv_admission *adm)
{
	for (const struct recv_sender *a = adm->sessions; a; a = a->next)
		if (spins_for(a))
			return true;
	return false;
}
