/* A sender's session as a state machine: admitted, authenticating,
 * serving, refusing, closing; its silence watched, its requests taken in
 * and answered. Each family of requests is served in a file of its own:
 * commits (session_commits.c), changes of what the log is
 * (session_changes.c), a writer's windows (session_windows.c), a reader's
 * waits (session_reads.c). */
#include "sender/session.h"

#include "cli/log.h"
#include "error.h"
#include "metrics/clock.h"
#include "metrics/counters.h"
#include "sender/lost_commit.h"
#include "sender/session_internal.h"

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

void session_close_with(struct recv_session *s, const char *fmt, ...)
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
		session_close_with(s, "%s", err.msg);
		return;
	}
	rs_verbose("sender %s proved the auth key", s->peer);
	if (s->link.send_grant(s->link.ctx)) {
		session_close_with(s, "cannot send the grant");
		return;
	}
	s->state = RECV_SESSION_SERVING;
	s->served = true;
}

/* Whether req is the rebase under way, answered once it is over. */
static bool deferred(const struct recv_session *s, const struct rs_msg *req)
{
	return s->rebasing.on && req->type == RS_MSG_REBASE &&
	       req->seq == s->rebasing.req.seq;
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
		ok = session_keepalive(s, req, &reply);
	else if (changing) {
		session_count_head(s); /* what came before the log changes */
		if (s->state == RECV_SESSION_CLOSING)
			return; /* its offset broke a rule */
		uint64_t rewinds = c->target ? c->target->rewinds : 0;
		ok = session_change(s, slot, req, &reply);
		session_tell_rewound(s, rewinds);
		session_count_head(s);
	} else if (verifying)
		ok = recv_verify_apply(c->target, c->rotation, &c->read_ring,
				       c->verify, req, &reply);
	else if (session_commit_again(s, req) ||
		 recv_lost_commit(++s->commit_requests))
		return;
	else if ((ok = session_commit(s, req, &reply)))
		session_commit_note(s, req);
	if (!deferred(s, req))
		session_answer(s, slot, req, &reply, ok, committing);
}

/* Sends the reply to req, unless the session closed meanwhile (a window
 * that could not move: no key to hand out); a refusal closes it. */
void session_answer(struct recv_session *s, uint16_t slot,
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
		session_close_with(s, "cannot reply");
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
		session_on_wait(s, slot, msg, now_ms);
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
	session_close_with(s, "%s", why);
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
		session_close_with(s, "cannot probe");
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
	session_close_with(s, "peer timeout");
}

void recv_session_on_timer(struct recv_session *s, int64_t now_ms)
{
	if (s->state == RECV_SESSION_SERVING ||
	    s->state == RECV_SESSION_CLOSING)
		session_count_head(s);
	if (s->state == RECV_SESSION_AUTHENTICATING && now_ms >= s->deadline_ms)
		recv_session_on_failure(s, "auth deadline passed");
	else if (s->state == RECV_SESSION_ADMITTED && now_ms >= s->deadline_ms)
		session_close_with(s, "sender did not complete the connection");
	else if (s->state == RECV_SESSION_REFUSING && now_ms >= s->deadline_ms)
		refusal_done(s);
	else if (s->state == RECV_SESSION_SERVING && s->rebasing.on)
		session_rebase_answer(s);
	else if (s->state == RECV_SESSION_SERVING && s->parked.on &&
		 session_wait_due(s, now_ms))
		session_answer_wait(s);
	else if (s->state == RECV_SESSION_SERVING && !s->parked.on)
		probe_if_silent(s, now_ms);
}
