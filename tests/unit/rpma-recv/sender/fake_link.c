/* The fake link (fake_link.h). */
#include "fake_link.h"

#include "error.h"
#include "reach/write_windows.h"

static int fake_window(void *ctx, uint64_t head, uint64_t need, bool reset,
		       struct recv_window_binding *b)
{
	struct fake_link *f = ctx;
	unsigned other = f->newest ^ 1u;
	f->key[other] = b->key = ++f->next_key;
	f->head[other] = b->reach = head;
	f->end[other] = b->end = head + (need > FAKE_REACH ? need : FAKE_REACH);
	f->last_need = need;
	f->newest = other;
	f->moves++;
	if (reset)
		f->key[other ^ 1u] = 0;
	return 0;
}

static int fake_check_auth(void *ctx, const struct rs_msg *msg,
			   struct rs_error *err)
{
	struct fake_link *f = ctx;
	if (msg->type != RS_MSG_AUTH || !f->auth_ok)
		return rs_error_set(err, RS_E_AUTH, 0, "wrong auth key");
	return 0;
}

static int fake_send_grant(void *ctx)
{
	struct fake_link *f = ctx;
	f->grants++;
	return 0;
}

static int fake_reply(void *ctx, uint16_t slot, const struct rs_msg *reply,
		      bool signaled)
{
	(void)slot;
	struct fake_link *f = ctx;
	f->replies++;
	f->signaled += signaled;
	f->last_signaled = signaled;
	f->last_reply = *reply;
	return 0;
}

static int fake_probe(void *ctx)
{
	struct fake_link *f = ctx;
	f->probes++;
	return 0;
}

static int64_t fake_stalled_ms(void *ctx, int64_t since_ms)
{
	struct fake_link *f = ctx;
	return f->stall_at_ms > since_ms ? f->stall_ms : 0;
}

struct recv_session_link fake_link_ops(struct fake_link *l, bool windows)
{
	return (struct recv_session_link){
	    .ctx = l,
	    .check_auth = fake_check_auth,
	    .send_grant = fake_send_grant,
	    .reply = fake_reply,
	    .window = windows ? fake_window : 0,
	    .probe = fake_probe,
	    .stalled_ms = fake_stalled_ms,
	};
}
