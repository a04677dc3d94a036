/* The requests that change what the log is, not only its length: a
 * rebase (answered once it is over), a replacement and its switch, and a
 * windowed writer's windows move to the head with it. */
#include "sender/session_internal.h"

#include "cli/log.h"
#include "rotation/generation.h"
#include "rotation/rotation.h"

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
void session_tell_rewound(struct recv_session *s, uint64_t before)
{
	if (s->cfg.target && s->cfg.target->rewinds != before &&
	    s->link.rewound)
		s->link.rewound(s->link.ctx);
}

/* The requests that change what the log is, not only its length. A
 * windowed writer's head moved (back, often): its windows start over
 * there, so no old key reaches what the log holds now. */
bool session_change(struct recv_session *s, uint16_t slot,
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
		return session_window_request(s, req, reply);
	default:
		ok = switch_in(s, req, reply);
		break;
	}
	if (ok && reply->status == RS_MSG_OK && s->cfg.windows &&
	    s->keys.ids.newest)
		ok = session_window_to_head(s, true, 0, reply);
	return ok;
}

/* A rebase under way is over: answered as session_change() answers one. */
void session_rebase_answer(struct recv_session *s)
{
	uint8_t status;
	uint64_t base = 0;
	uint64_t rewinds = s->cfg.target->rewinds;
	if (!recv_rotation_rebase_poll(s->cfg.rotation, &status, &base))
		return;
	session_tell_rewound(s, rewinds);
	s->rebasing.on = false;
	const struct rs_msg *req = &s->rebasing.req;
	struct rs_msg reply = {.type = RS_MSG_REBASE_DONE,
			       .seq = req->seq,
			       .status = status,
			       .offset = status == RS_MSG_OK ? base : 0};
	bool ok = true;
	if (status == RS_MSG_OK && s->cfg.windows && s->keys.ids.newest)
		ok = session_window_to_head(s, true, 0, &reply);
	session_count_head(s);
	session_answer(s, s->rebasing.slot, req, &reply, ok, false);
}
