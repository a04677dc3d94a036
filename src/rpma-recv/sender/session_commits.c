/* A writer's commits: applied by its method, counted, checked against
 * the keys it holds; and what a writer that commits alone (apm, flush)
 * stored in the offset word. */
#include "sender/session_internal.h"

#include "cli/log.h"
#include "methods/recv_method.h"
#include "metrics/clock.h"
#include "metrics/counters.h"

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
void session_count_head(struct recv_session *s)
{
	if (!commits_alone(s))
		return;
	struct recv_offset_seen seen = recv_offset_word_adopt(s->cfg.target);
	if (seen.rule != RECV_OFFSET_OK && s->broken.rule == RECV_OFFSET_OK) {
		s->broken = seen;
		session_close_with(s, "stored write offset %llu, %s",
				   (unsigned long long)seen.word,
				   recv_offset_rule_text(seen.rule));
	}
	count_from(s, recv_pmem_target_write_offset(s->cfg.target));
}

void recv_session_count_offset(struct recv_session *s)
{
	if (s->state == RECV_SESSION_SERVING)
		session_count_head(s);
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
bool session_keepalive(struct recv_session *s, const struct rs_msg *req,
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
		session_close_with(s, "refused request");
		return false;
	}
	if (req->key == s->keys.ids.newest &&
	    recv_window_keys_behind(&s->keys, session_head_of(&s->cfg)))
		return session_window_to_head(s, false, 0, reply);
	reply->key = s->keys.ids.newest;
	reply->key_end = s->key_end;
	return true;
}

/* A commit request applied, and counted when it committed. A windowed
 * writer's commit on the newest key proves it writes with that key from
 * now on: the other window moves up to the new head. A lone commit
 * (RS_MSG_LONE) says it writes with no key until the reply: both move, and
 * no key reaches what it committed. */
bool session_commit(struct recv_session *s, const struct rs_msg *req,
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
		       (unsigned)s->keys.ids.newest,
		       (unsigned)s->keys.ids.before);
		*reply = (struct rs_msg){.type = RS_MSG_COMMIT_DONE,
					 .seq = req->seq,
					 .status = RS_MSG_BAD_REQUEST};
	}
	if (ok && c->counters)
		recv_counters_committed(c->counters, req->length,
					recv_now_ns() - start);
	bool lone = req->flags & RS_MSG_LONE;
	if (ok && c->windows && (lone || req->key == s->keys.ids.newest)) {
		ok = session_window_to_head(s, lone, req->length, reply);
	} else if (ok && c->windows) {
		reply->key = s->keys.ids.newest;
		reply->key_end = s->key_end;
	}
	return ok;
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
bool session_commit_again(struct recv_session *s, const struct rs_msg *req)
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

void session_commit_note(struct recv_session *s, const struct rs_msg *req)
{
	s->applied[s->applied_next] = applied_of(req);
	s->applied_next = (s->applied_next + 1) % RECV_SESSION_APPLIED;
}
