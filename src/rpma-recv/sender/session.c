#include "sender/session.h"

#include "cli/log.h"
#include "error.h"
#include "methods/recv_method.h"
#include "methods/write_windows.h"
#include "metrics/clock.h"
#include "metrics/counters.h"
#include "rotation/generation.h"
#include "rotation/rotation.h"
#include "sender/lost_commit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *recv_session_state_name(enum recv_session_state s)
{
	switch (s) {
	case RECV_SESSION_ADMITTED:
		return "admitted";
	case RECV_SESSION_AUTHENTICATING:
		return "authenticating";
	case RECV_SESSION_SERVING:
		return "serving";
	case RECV_SESSION_REFUSING:
		return "refusing";
	default:
		return "closing";
	}
}

/* How long a refused sender's reply may take to be delivered before the
 * session ends without waiting for it. */
#define RECV_REFUSAL_LINGER_MS 1000

static void close_with(struct recv_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void close_with(struct recv_session *s, const char *fmt, ...)
{
	if (s->state == RECV_SESSION_CLOSING)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	s->state = RECV_SESSION_CLOSING;
}

void recv_session_init(struct recv_session *s,
		       const struct recv_session_config *cfg,
		       const struct recv_session_link *link, const char *peer,
		       int64_t now_ms)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->link = *link;
	s->state = RECV_SESSION_ADMITTED;
	s->deadline_ms = now_ms + cfg->deadline_ms;
	s->heard_ms = now_ms;
	snprintf(s->peer, sizeof(s->peer), "%s", peer);
	if (cfg->target)
		s->seen_head = recv_pmem_target_write_offset(cfg->target);
}

/* Whether the writer stores the write offset itself (apm, flush): the
 * receiver hears of no commit and learns of them from the offset. */
static bool commits_alone(const struct recv_session *s)
{
	return s->cfg.method && s->cfg.method->commit_type == 0 &&
	       s->cfg.target;
}

/* Counts what such a writer committed since the offset was last seen; an
 * offset that went back (the log started over) is only noted. */
static void count_from(struct recv_session *s, uint64_t head)
{
	if (head > s->seen_head) {
		s->commits++;
		s->bytes += head - s->seen_head;
		recv_session_times_commit(&s->times, recv_now_ns());
		if (s->cfg.counters)
			recv_counters_committed_alone(s->cfg.counters,
						      head - s->seen_head);
	}
	s->seen_head = head;
}

/* Such a writer's stored offset, checked and adopted when good; one that
 * breaks a rule ends the session (its end puts the last good one back). */
static void count_head(struct recv_session *s)
{
	if (!commits_alone(s))
		return;
	struct recv_offset_seen seen = recv_offset_word_adopt(s->cfg.target);
	if (seen.rule != RECV_OFFSET_OK && s->broken.rule == RECV_OFFSET_OK) {
		s->broken = seen;
		close_with(s, "stored write offset %llu, %s",
			   (unsigned long long)seen.word,
			   recv_offset_rule_text(seen.rule));
	}
	count_from(s, recv_pmem_target_write_offset(s->cfg.target));
}

void recv_session_count_offset(struct recv_session *s)
{
	if (s->state == RECV_SESSION_SERVING)
		count_head(s);
	else if (s->state == RECV_SESSION_ADMITTED && commits_alone(s))
		/* Its writes land as soon as its side is established, maybe
		 * before this side's event says so: a good word is adopted
		 * (a broken one ends it once it serves). */
		recv_offset_word_adopt(s->cfg.target);
}

struct recv_offset_seen recv_session_settle_offset(struct recv_session *s)
{
	struct recv_offset_seen none = {0};
	if (!commits_alone(s))
		return none;
	struct recv_offset_seen seen = recv_offset_word_settle(s->cfg.target);
	count_from(s, recv_pmem_target_write_offset(s->cfg.target));
	if (s->broken.rule != RECV_OFFSET_OK)
		return s->broken;
	return seen;
}

void recv_session_on_established(struct recv_session *s, int64_t now_ms)
{
	if (s->state != RECV_SESSION_ADMITTED)
		return;
	s->times.established_ns = recv_now_ns();
	if (s->cfg.auth) {
		s->state = RECV_SESSION_AUTHENTICATING;
		s->deadline_ms = now_ms + s->cfg.deadline_ms;
		return;
	}
	s->state = RECV_SESSION_SERVING;
	s->served = true;
}

/* The sender's first message can overtake the connection's ESTABLISHED
 * event: a message proves the connection is up. */
static void established_by_message(struct recv_session *s)
{
	int64_t admitted_ms = s->deadline_ms - s->cfg.deadline_ms;
	recv_session_on_established(s, admitted_ms);
}

static void refused_auth(struct recv_session *s)
{
	if (s->cfg.counters)
		recv_counters_refused(s->cfg.counters, RECV_REFUSED_AUTH);
}

static void on_auth_answer(struct recv_session *s, const struct rs_msg *msg)
{
	struct rs_error err = {0};
	if (s->link.check_auth(s->link.ctx, msg, &err)) {
		rs_err("refusing sender %s: %s", s->peer, err.msg);
		refused_auth(s);
		close_with(s, "%s", err.msg);
		return;
	}
	rs_verbose("sender %s proved the auth key", s->peer);
	if (s->link.send_grant(s->link.ctx)) {
		close_with(s, "cannot send the grant");
		return;
	}
	s->state = RECV_SESSION_SERVING;
	s->served = true;
}

/* ---- a writer's windows ---- */

static uint64_t head_of(const struct recv_session_config *c)
{
	return recv_generation_head(c->gen, c->target);
}

void recv_session_windows_end(struct recv_session *s)
{
	recv_window_keys_end(&s->keys, head_of(&s->cfg), recv_now_ns());
}

/* Moves (or resets) the writer's windows to the log's head; the reply
 * carries the new key. False when the binding could not be posted. */
static bool window_to_head(struct recv_session *s, bool reset, uint64_t need,
			   struct rs_msg *reply)
{
	struct recv_window_binding b;
	uint64_t head = head_of(&s->cfg);
	if (s->link.window(s->link.ctx, head, need, reset, &b)) {
		close_with(s, "cannot bind a memory window");
		return false;
	}
	recv_window_keys_bound(&s->keys, b.key, reset, b.reach, head,
			       recv_now_ns());
	reply->key = b.key;
	reply->key_end = b.end;
	s->key_end = b.end;
	return true;
}

/* The first key, or a fresh one (nothing in flight): the windows start
 * over at the head. */
static bool window_request(struct recv_session *s, const struct rs_msg *req,
			   struct rs_msg *reply)
{
	*reply = (struct rs_msg){.type = RS_MSG_WINDOW_DONE, .seq = req->seq};
	if (!s->cfg.windows || !s->cfg.method) {
		reply->status = RS_MSG_BAD_REQUEST;
		return false;
	}
	reply->offset = head_of(&s->cfg);
	if (!window_to_head(s, true, req->length, reply))
		return false;
	reply->length = reply->key_end - reply->offset;
	return true;
}

/* Whether a commit names a key it may have written with: none without
 * windows; with them the newest or the one before. */
static bool commit_key_ok(const struct recv_session *s,
			  const struct rs_msg *req)
{
	if (!s->cfg.windows)
		return req->key == 0;
	return recv_window_keys_holds(&s->keys, req->key);
}

/* A windowed writer's keepalive names the newest key it holds: a stream
 * that paused moves its windows up to the head too. A key it was never
 * given ends the session, unanswered. */
static bool keepalive(struct recv_session *s, const struct rs_msg *req,
		      struct rs_msg *reply)
{
	*reply =
	    (struct rs_msg){.type = RS_MSG_KEEPALIVE_DONE, .seq = req->seq};
	if (!req->key)
		return true;
	if (!s->cfg.windows || !commit_key_ok(s, req)) {
		rs_err("sender %s named a window key it does not hold; closing "
		       "the connection",
		       s->peer);
		close_with(s, "refused request");
		return false;
	}
	if (req->key == s->keys.newest &&
	    recv_window_keys_behind(&s->keys, head_of(&s->cfg)))
		return window_to_head(s, false, 0, reply);
	reply->key = s->keys.newest;
	reply->key_end = s->key_end;
	return true;
}

/* A commit request applied, and counted when it committed. A windowed
 * writer's commit on the newest key proves it writes with that key from
 * now on: the other window moves up to the new head. A lone commit
 * (RS_MSG_LONE) says it writes with no key until the reply: both move, and
 * no key reaches what it committed. */
static bool commit(struct recv_session *s, const struct rs_msg *req,
		   struct rs_msg *reply)
{
	const struct recv_session_config *c = &s->cfg;
	uint64_t start = c->counters ? recv_now_ns() : 0;
	bool ok = false;
	if (s->rebasing.on) {
		/* A writer asks for a rebase with nothing in flight: what it
		 * commits now, the pool's starting over would drop. */
		*reply = (struct rs_msg){.type = RS_MSG_COMMIT_DONE,
					 .seq = req->seq,
					 .status = RS_MSG_BAD_REQUEST};
		return false;
	}
	if (commit_key_ok(s, req)) {
		ok = recv_commit_apply_to(c->target, &c->staging, c->method,
					  c->gen, req, reply);
	} else {
		/* Which of the two it was: a key long gone (a commit seen
		 * twice, or sent late), or one never given. */
		rs_err("sender %s: commit seq %u at offset %llu names key "
		       "%#x, which it does not hold (newest %#x, before %#x)",
		       s->peer, (unsigned)req->seq,
		       (unsigned long long)req->offset, (unsigned)req->key,
		       (unsigned)s->keys.newest, (unsigned)s->keys.before);
		*reply = (struct rs_msg){.type = RS_MSG_COMMIT_DONE,
					 .seq = req->seq,
					 .status = RS_MSG_BAD_REQUEST};
	}
	if (ok && c->counters)
		recv_counters_committed(c->counters, req->length,
					recv_now_ns() - start);
	bool lone = req->flags & RS_MSG_LONE;
	if (ok && c->windows && (lone || req->key == s->keys.newest)) {
		ok = window_to_head(s, lone, req->length, reply);
	} else if (ok && c->windows) {
		reply->key = s->keys.newest;
		reply->key_end = s->key_end;
	}
	return ok;
}

/* A writer with nothing in flight asks for its full pool to be archived
 * and started over: under way on the archiver's thread, answered when it
 * is over (rebase_answer). An archive that fails is the sender's to report
 * (it ends its stream); only a request that makes no sense ends the
 * session. */
static bool rebase(struct recv_session *s, uint16_t slot,
		   const struct rs_msg *req, struct rs_msg *reply)
{
	const struct recv_session_config *c = &s->cfg;
	*reply = (struct rs_msg){.type = RS_MSG_REBASE_DONE, .seq = req->seq};
	if (!c->method || (c->gen && c->gen->active) || s->rebasing.on)
		reply->status = RS_MSG_BAD_REQUEST;
	else if (!c->rotation)
		reply->status = RS_MSG_NO_ARCHIVE;
	else
		reply->status =
		    recv_rotation_rebase_begin(c->rotation, req->offset);
	if (reply->status == RS_MSG_OK) {
		s->rebasing.on = true;
		s->rebasing.slot = slot;
		s->rebasing.req = *req;
	}
	return reply->status != RS_MSG_BAD_REQUEST;
}

/* A writer that asked to replace the log places its replacement (or, back
 * on a new connection, learns where the one it began stands). */
static bool replace(struct recv_session *s, const struct rs_msg *req,
		    struct rs_msg *reply)
{
	const struct recv_session_config *c = &s->cfg;
	struct recv_generation *g = c->gen;
	*reply = (struct rs_msg){.type = RS_MSG_REPLACE_DONE, .seq = req->seq};
	if (!c->method || !c->replace || !g) {
		reply->status = RS_MSG_BAD_REQUEST;
	} else if (req->offset == 1) { /* carry on */
		reply->status = g->active ? RS_MSG_OK : RS_MSG_NO_REPLACEMENT;
		reply->offset = g->at;
		reply->length = g->active ? g->end - g->at : 0;
	} else if (g->active) {
		reply->status = RS_MSG_BAD_REQUEST;
	} else {
		uint64_t room = 0;
		reply->status = recv_generation_place(g, c->target, c->rotation,
						      req->length, &room);
		reply->offset = g->at;
		reply->length = reply->status == RS_MSG_NO_ROOM ? room : 0;
		if (g->active)
			rs_info("sender %s replaces the log: %llu bytes at "
				"offset %llu, the old content kept until "
				"then",
				s->peer, (unsigned long long)req->length,
				(unsigned long long)g->at);
	}
	return reply->status != RS_MSG_BAD_REQUEST;
}

/* The replacement is whole: it becomes the log. */
static bool switch_in(struct recv_session *s, const struct rs_msg *req,
		      struct rs_msg *reply)
{
	const struct recv_session_config *c = &s->cfg;
	struct recv_generation *g = c->gen;
	*reply = (struct rs_msg){.type = RS_MSG_SWITCH_DONE, .seq = req->seq};
	if (!c->method || !c->replace || !g)
		reply->status = RS_MSG_BAD_REQUEST;
	else if (!g->active)
		reply->status = RS_MSG_NO_REPLACEMENT;
	else if (req->offset != g->end)
		reply->status = RS_MSG_BAD_REQUEST;
	else
		reply->status =
		    recv_rotation_switch(c->rotation, g->at, g->end - g->at);
	if (reply->status == RS_MSG_OK)
		g->active = false;
	return reply->status != RS_MSG_BAD_REQUEST;
}

/* The pool went back since `before` (its rewinds then): the link hears of
 * it before the writer does. */
static void tell_rewound(struct recv_session *s, uint64_t before)
{
	if (s->cfg.target && s->cfg.target->rewinds != before &&
	    s->link.rewound)
		s->link.rewound(s->link.ctx);
}

/* The requests that change what the log is, not only its length. A
 * windowed writer's head moved (back, often): its windows start over
 * there, so no old key reaches what the log holds now. */
static bool change(struct recv_session *s, uint16_t slot,
		   const struct rs_msg *req, struct rs_msg *reply)
{
	bool ok;
	switch (req->type) {
	case RS_MSG_REBASE:
		ok = rebase(s, slot, req, reply);
		if (s->rebasing.on)
			return true; /* answered when it is over */
		break;
	case RS_MSG_REPLACE:
		ok = replace(s, req, reply);
		break;
	case RS_MSG_WINDOW:
		return window_request(s, req, reply);
	default:
		ok = switch_in(s, req, reply);
		break;
	}
	if (ok && reply->status == RS_MSG_OK && s->cfg.windows &&
	    s->keys.newest)
		ok = window_to_head(s, true, 0, reply);
	return ok;
}

/* ---- a reader's waits ---- */

/* Where the log stands, as a WAIT_DONE says it. */
static void log_state(const struct recv_session_config *c, struct rs_msg *reply)
{
	if (c->rotation) {
		reply->offset = recv_rotation_end(c->rotation);
		reply->length = recv_rotation_base(c->rotation);
		reply->ring_offset = recv_rotation_first(c->rotation);
		reply->hash = recv_rotation_content(c->rotation);
	} else {
		reply->offset =
		    recv_pmem_target_write_offset(c->target) - c->target->start;
	}
}

static uint64_t content_of(const struct recv_session_config *c)
{
	return c->rotation ? recv_rotation_content(c->rotation) : 0;
}

/* A parked wait is due: the log grew past the reader, its content
 * changed, or it waited long enough to prove the session alive. */
static bool wait_due(const struct recv_session *s, int64_t now_ms)
{
	const struct recv_parked_wait *p = &s->parked;
	struct rs_msg st = {0};
	log_state(&s->cfg, &st);
	return st.offset > p->offset || st.hash != p->content ||
	       now_ms - p->since_ms >= s->cfg.peer_timeout_ms / 4;
}

static void answer_wait(struct recv_session *s)
{
	struct rs_msg reply = {.type = RS_MSG_WAIT_DONE, .seq = s->parked.seq};
	log_state(&s->cfg, &reply);
	s->parked.on = false;
	if (s->link.reply(s->link.ctx, s->parked.slot, &reply, true))
		close_with(s, "cannot reply");
}

/* A reader's WAIT: answered now, or parked until it is due. */
static void on_wait(struct recv_session *s, uint16_t slot,
		    const struct rs_msg *req, int64_t now_ms)
{
	if (!s->cfg.verify || s->parked.on) {
		rs_err("refused a wait from %s: %s; closing the connection",
		       s->peer,
		       s->cfg.verify ? "one is waiting already"
				     : "it did not connect to read");
		close_with(s, "refused request");
		return;
	}
	s->parked = (struct recv_parked_wait){.on = true,
					      .slot = slot,
					      .seq = req->seq,
					      .offset = req->offset,
					      .content = content_of(&s->cfg),
					      .since_ms = now_ms};
	if (!req->length || wait_due(s, now_ms))
		answer_wait(s);
}

static void answer(struct recv_session *s, uint16_t slot,
		   const struct rs_msg *req, const struct rs_msg *reply,
		   bool ok, bool committing);

/* A rebase under way is over: answered as change() answers one. */
static void rebase_answer(struct recv_session *s)
{
	uint8_t status;
	uint64_t base = 0;
	uint64_t rewinds = s->cfg.target->rewinds;
	if (!recv_rotation_rebase_poll(s->cfg.rotation, &status, &base))
		return;
	tell_rewound(s, rewinds);
	s->rebasing.on = false;
	const struct rs_msg *req = &s->rebasing.req;
	struct rs_msg reply = {.type = RS_MSG_REBASE_DONE,
			       .seq = req->seq,
			       .status = status,
			       .offset = status == RS_MSG_OK ? base : 0};
	bool ok = true;
	if (status == RS_MSG_OK && s->cfg.windows && s->keys.newest)
		ok = window_to_head(s, true, 0, &reply);
	count_head(s);
	answer(s, s->rebasing.slot, req, &reply, ok, false);
}

/* Whether req is the rebase under way, answered once it is over. */
static bool deferred(const struct recv_session *s, const struct rs_msg *req)
{
	return s->rebasing.on && req->type == RS_MSG_REBASE &&
	       req->seq == s->rebasing.req.seq;
}

static struct recv_applied applied_of(const struct rs_msg *m)
{
	return (struct recv_applied){.type = m->type,
				     .flags = m->flags,
				     .seq = m->seq,
				     .key = m->key,
				     .offset = m->offset,
				     .length = m->length,
				     .ring_offset = m->ring_offset};
}

static bool same_applied(const struct recv_applied *a,
			 const struct recv_applied *b)
{
	return a->type == b->type && a->flags == b->flags && a->seq == b->seq &&
	       a->key == b->key && a->offset == b->offset &&
	       a->length == b->length && a->ring_offset == b->ring_offset;
}

/* Whether req is, field for field, a commit this session applied already:
 * the same message delivered twice, which an honest sender never sends
 * (each batch has its own seq). Applying it again would refuse it (its
 * offset is behind the head, its key may be gone) and end a healthy
 * session; it wrote nothing, so it is left unanswered. */
static bool applied_again(struct recv_session *s, const struct rs_msg *req)
{
	struct recv_applied a = applied_of(req);
	for (unsigned i = 0; i < RECV_SESSION_APPLIED; i++) {
		if (same_applied(&s->applied[i], &a)) {
			s->again++;
			rs_warn("sender %s: commit seq %u at offset %llu "
				"came again (delivered twice): ignored",
				s->peer, (unsigned)req->seq,
				(unsigned long long)req->offset);
			return true;
		}
	}
	return false;
}

static void note_applied(struct recv_session *s, const struct rs_msg *req)
{
	s->applied[s->applied_next] = applied_of(req);
	s->applied_next = (s->applied_next + 1) % RECV_SESSION_APPLIED;
}

/* Applies one request and answers it (a rebase: once it is over). */
static void serve(struct recv_session *s, uint16_t slot,
		  const struct rs_msg *req)
{
	const struct recv_session_config *c = &s->cfg;
	struct rs_msg reply;
	bool verifying =
	    req->type == RS_MSG_HASH || req->type == RS_MSG_READ_STAGE;
	bool changing =
	    req->type == RS_MSG_REBASE || req->type == RS_MSG_REPLACE ||
	    req->type == RS_MSG_SWITCH || req->type == RS_MSG_WINDOW;
	bool committing =
	    !verifying && !changing && req->type != RS_MSG_KEEPALIVE;
	bool ok = true;
	if (req->type == RS_MSG_KEEPALIVE)
		ok = keepalive(s, req, &reply);
	else if (changing) {
		count_head(s); /* what came before the log changes */
		if (s->state == RECV_SESSION_CLOSING)
			return; /* its offset broke a rule */
		uint64_t rewinds = c->target ? c->target->rewinds : 0;
		ok = change(s, slot, req, &reply);
		tell_rewound(s, rewinds);
		count_head(s);
	} else if (verifying)
		ok = recv_verify_apply(c->target, c->rotation, &c->read_ring,
				       c->verify, req, &reply);
	else if (applied_again(s, req) ||
		 recv_lost_commit(++s->commit_requests))
		return;
	else if ((ok = commit(s, req, &reply)))
		note_applied(s, req);
	if (!deferred(s, req))
		answer(s, slot, req, &reply, ok, committing);
}

/* Sends the reply to req, unless the session closed meanwhile (a window
 * that could not move: no key to hand out); a refusal closes it. */
static void answer(struct recv_session *s, uint16_t slot,
		   const struct rs_msg *req, const struct rs_msg *reply,
		   bool ok, bool committing)
{
	const struct recv_session_config *c = &s->cfg;
	if (s->state == RECV_SESSION_CLOSING)
		return;
	/* One reply in `credits` is signaled, only to reclaim send-queue
	 * entries: fewer completions, fewer wake-ups. */
	uint32_t n = s->replies++;
	/* A refusal is signaled: its completion ends the session. */
	bool signaled = !ok || n % c->credits == c->credits - 1u;
	if (s->link.reply(s->link.ctx, slot, reply, signaled)) {
		close_with(s, "cannot reply");
		return;
	}
	if (!ok) {
		rs_err("refused a request from %s at offset %llu length %llu "
		       "(seq %u): %s; closing the connection",
		       s->peer, (unsigned long long)req->offset,
		       (unsigned long long)req->length, (unsigned)req->seq,
		       rs_msg_status_str(reply->status));
		s->state = RECV_SESSION_REFUSING;
		s->deadline_ms = s->heard_ms + RECV_REFUSAL_LINGER_MS;
		snprintf(s->why, sizeof(s->why), "refused request");
		return;
	}
	if (committing) {
		s->commits++;
		s->bytes += req->length;
		recv_session_times_commit(&s->times, recv_now_ns());
	}
}

void recv_session_on_message(struct recv_session *s, uint16_t slot,
			     const struct rs_msg *msg, int64_t now_ms)
{
	s->heard_ms = now_ms;
	/* A word from the sender answers for its link: a probe out since is
	 * late (its host busy), not unanswered. */
	s->probe_out = false;
	if (s->state == RECV_SESSION_ADMITTED)
		established_by_message(s);
	if (s->state == RECV_SESSION_AUTHENTICATING)
		on_auth_answer(s, msg);
	else if (s->state == RECV_SESSION_SERVING && msg->type == RS_MSG_WAIT)
		on_wait(s, slot, msg, now_ms);
	else if (s->state == RECV_SESSION_SERVING)
		serve(s, slot, msg);
}

/* The refusal reached the sender, or had its time: the session ends, for
 * the reason already given. */
static void refusal_done(struct recv_session *s)
{
	s->state = RECV_SESSION_CLOSING;
}

void recv_session_on_sent(struct recv_session *s)
{
	if (s->state == RECV_SESSION_REFUSING)
		refusal_done(s);
}

void recv_session_on_failure(struct recv_session *s, const char *why)
{
	/* The challenge goes with the accept: a sender without the key may
	 * hang up before this side has seen its session established. */
	bool challenged = s->state == RECV_SESSION_AUTHENTICATING ||
			  (s->state == RECV_SESSION_ADMITTED && s->cfg.auth);
	if (challenged) {
		rs_err("refusing sender %s: it did not answer the auth "
		       "challenge",
		       s->peer);
		refused_auth(s);
	}
	close_with(s, "%s", why);
}

/* ---- a silent sender ---- */

/* How long since from_ms, less the time the log's thread could not run:
 * on a host short of CPU the sender's adapter (Soft-RoCE: the kernel's
 * work) and this thread starve together, and a probe answered late there
 * is no dead link (128 shell pipelines in a 2-CPU guest: sessions ended
 * after 10 s with the sender alive). */
static int64_t quiet_ms(const struct recv_session *s, int64_t from_ms,
			int64_t now_ms)
{
	int64_t ms = now_ms - from_ms;
	int64_t off =
	    s->link.stalled_ms ? s->link.stalled_ms(s->link.ctx, from_ms) : 0;
	return ms > off ? ms - off : 0;
}

/* A sender not heard from for half the peer timeout has its link probed,
 * again half a timeout after each answer while it stays silent: a write of
 * no bytes its adapter answers without waking it, whose completion wakes
 * no one either (the receiver's sends are quiet: rs_conn_quiet_sends). An
 * idle sender so costs the receiver a post per half timeout, not a message
 * and a reply per quarter. A probe unanswered for half the timeout (a
 * device may resend for ever: Soft-RoCE does with seven retries) or failed
 * means the sender's host, link or queue pair is gone. */
static void probe_if_silent(struct recv_session *s, int64_t now_ms)
{
	int64_t half = s->cfg.peer_timeout_ms / 2;
	int64_t last = s->heard_ms > s->probed_ms ? s->heard_ms : s->probed_ms;
	if (s->probe_out && quiet_ms(s, s->probed_ms, now_ms) >= half) {
		recv_session_on_probe_failed(s, "no answer", now_ms);
		return;
	}
	if (s->probe_out || quiet_ms(s, last, now_ms) < half)
		return;
	s->probed_ms = now_ms;
	s->probe_out = true;
	if (s->link.probe(s->link.ctx))
		close_with(s, "cannot probe");
}

void recv_session_on_probe_answered(struct recv_session *s)
{
	s->probe_out = false;
}

void recv_session_on_probe_failed(struct recv_session *s, const char *status,
				  int64_t now_ms)
{
	if (s->state == RECV_SESSION_SERVING)
		rs_info("sender %s: no word for %lld ms (%lld ms of it this "
			"thread could not run) and its link does not answer "
			"(%s): peer timeout; ending its session, the log is "
			"free",
			s->peer, (long long)(now_ms - s->heard_ms),
			(long long)(now_ms - s->heard_ms -
				    quiet_ms(s, s->heard_ms, now_ms)),
			status);
	close_with(s, "peer timeout");
}

void recv_session_on_timer(struct recv_session *s, int64_t now_ms)
{
	if (s->state == RECV_SESSION_SERVING ||
	    s->state == RECV_SESSION_CLOSING)
		count_head(s);
	if (s->state == RECV_SESSION_AUTHENTICATING && now_ms >= s->deadline_ms)
		recv_session_on_failure(s, "auth deadline passed");
	else if (s->state == RECV_SESSION_ADMITTED && now_ms >= s->deadline_ms)
		close_with(s, "sender did not complete the connection");
	else if (s->state == RECV_SESSION_REFUSING && now_ms >= s->deadline_ms)
		refusal_done(s);
	else if (s->state == RECV_SESSION_SERVING && s->rebasing.on)
		rebase_answer(s);
	else if (s->state == RECV_SESSION_SERVING && s->parked.on &&
		 wait_due(s, now_ms))
		answer_wait(s);
	else if (s->state == RECV_SESSION_SERVING && !s->parked.on)
		probe_if_silent(s, now_ms);
}
