/* A windowed writer's windows: the first key, a fresh one, and the
 * windows moved (or reset) to the log's head when it moves. */
#include "sender/session_internal.h"

#include "metrics/clock.h"
#include "reach/write_windows.h"
#include "rotation/generation.h"

uint64_t session_head_of(const struct recv_session_config *c)
{
	return recv_generation_head(c->gen, c->target);
}

void recv_session_windows_end(struct recv_session *s)
{
	recv_window_keys_end(&s->keys, session_head_of(&s->cfg), recv_now_ns());
}

/* Moves (or resets) the writer's windows to the log's head; the reply
 * carries the new key. False when the binding could not be posted. */
bool session_window_to_head(struct recv_session *s, bool reset, uint64_t need,
			    struct rs_msg *reply)
{
	struct recv_window_binding b;
	uint64_t head = session_head_of(&s->cfg);
	if (s->link.window(s->link.ctx, head, need, reset, &b)) {
		session_close_with(s, "cannot bind a memory window");
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
bool session_window_request(struct recv_session *s, const struct rs_msg *req,
			    struct rs_msg *reply)
{
	*reply = (struct rs_msg){.type = RS_MSG_WINDOW_DONE, .seq = req->seq};
	if (!s->cfg.windows || !s->cfg.method) {
		reply->status = RS_MSG_BAD_REQUEST;
		return false;
	}
	reply->offset = session_head_of(&s->cfg);
	if (!session_window_to_head(s, true, req->length, reply))
		return false;
	reply->length = reply->key_end - reply->offset;
	return true;
}
