#include "methods/commit_message.h"

#include "error.h"

void commit_message_post(const struct method_ctx *m,
			 const struct window_batch *b, uint8_t type,
			 uint64_t ring_offset, struct send_chain *chain)
{
	struct rs_msg msg = {
	    .type = type,
	    .seq = b->seq,
	    .offset = m->log_start + method_in_pool(m, b->offset),
	    .length = b->length,
	    .ring_offset = ring_offset,
	    .key = type == RS_MSG_COMMIT ? m->key : 0,
	    .flags = type == RS_MSG_COMMIT && m->lone ? RS_MSG_LONE : 0,
	};
	/* The reply says the request arrived; one send in `depth` is signaled
	 * only to reclaim send-queue entries. */
	uint32_t slot = window_slot_of(m->w, b->seq);
	unsigned flags = slot == window_depth(m->w) - 1u ? RS_POST_SIGNALED : 0;
	chain_send(chain, (uint16_t)slot, &msg, UINT64_MAX, flags);
}

int commit_message_take(const struct method_ctx *m,
			const struct method_event *ev,
			struct method_confirm *out, struct rs_error *err)
{
	const struct rs_msg *reply = ev->msg;
	if (ev->op != RS_OP_RECV || !reply)
		return 0;
	if (reply->type != RS_MSG_COMMIT_DONE)
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "unexpected message type");
	/* Not where the log ends: the commits before it never reached the
	 * receiver (Soft-RoCE was seen to lose them under load, issue 69),
	 * which refuses it and closes the connection. Nothing was committed
	 * out of order: a lost session, resumed from where the log ends. */
	if (reply->status == RS_MSG_NOT_CONTIGUOUS)
		return rs_error_set(err, RS_E_LOST, 0,
				    "refused batch %u: %s (the log ends at "
				    "offset %llu): the commits before it did "
				    "not reach the receiver",
				    reply->seq,
				    rs_msg_status_str(reply->status),
				    (unsigned long long)reply->offset);
	if (reply->status != RS_MSG_OK)
		return rs_error_set(err, RS_E_REJECTED, 0,
				    "refused batch %u: %s", reply->seq,
				    rs_msg_status_str(reply->status));
	out->seq = reply->seq;
	out->offset = reply->offset - m->log_start - m->pool_at + m->pos_base;
	return 1;
}

int send_method_take_own(const struct method_ctx *m,
			 const struct method_event *ev, enum rs_op last,
			 struct method_confirm *out, struct rs_error *err)
{
	if (ev->op != last)
		/* A receiver sends none to such a sender: taken as always. */
		return commit_message_take(m, ev, out, err);
	out->seq = (uint32_t)ev->wr_id;
	const struct window_batch *b = window_batch(m->w, out->seq);
	out->offset = b->offset + b->length;
	return 1;
}
