/* A reader's waits: a WAIT answered at once, or parked until the log
 * grows past the reader, its content changes, or it waited long enough
 * to prove the session alive. */
#include "sender/session_internal.h"

#include "cli/log.h"
#include "rotation/rotation.h"

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
bool session_wait_due(const struct recv_session *s, int64_t now_ms)
{
	const struct recv_parked_wait *p = &s->parked;
	struct rs_msg st = {0};
	log_state(&s->cfg, &st);
	return st.offset > p->offset || st.hash != p->content ||
	       now_ms - p->since_ms >= s->cfg.peer_timeout_ms / 4;
}

void session_answer_wait(struct recv_session *s)
{
	struct rs_msg reply = {.type = RS_MSG_WAIT_DONE, .seq = s->parked.seq};
	log_state(&s->cfg, &reply);
	s->parked.on = false;
	if (s->link.reply(s->link.ctx, s->parked.slot, &reply, true))
		session_close_with(s, "cannot reply");
}

/* A reader's WAIT: answered now, or parked until it is due. */
void session_on_wait(struct recv_session *s, uint16_t slot,
		     const struct rs_msg *req, int64_t now_ms)
{
	if (!s->cfg.verify || s->parked.on) {
		rs_err("refused a wait from %s: %s; closing the connection",
		       s->peer,
		       s->cfg.verify ? "one is waiting already"
				     : "it did not connect to read");
		session_close_with(s, "refused request");
		return;
	}
	s->parked = (struct recv_parked_wait){.on = true,
					      .slot = slot,
					      .seq = req->seq,
					      .offset = req->offset,
					      .content = content_of(&s->cfg),
					      .since_ms = now_ms};
	if (!req->length || session_wait_due(s, now_ms))
		session_answer_wait(s);
}
