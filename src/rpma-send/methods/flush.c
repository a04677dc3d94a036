/* Flush on the sender's side (IBTA 1.5, librpma 1.3's native flush): the
 * batch is written in place; an RDMA FLUSH makes it persistent (the
 * responder answers only once the range is persistent, whatever DDIO does);
 * the new write offset, fenced behind that flush, lands whole by an RDMA
 * ATOMIC WRITE from this slot's word; a last RDMA FLUSH makes the offset
 * persistent, and its completion is the confirmation. No message, no
 * receiver CPU per commit.
 *
 * The fence: a FLUSH is answered like a READ, and a request after a READ
 * may be executed before the READ's answer is back (IBA's ordering rules),
 * so without it the offset could be placed before the batch is persistent.
 * The last FLUSH needs none: a FLUSH applies to what the queue pair placed
 * before it, the ATOMIC WRITE included. */
#include "methods/send_method.h"

#include <endian.h>

/* The write offset each credit slot stores. */
struct flush_words {
	uint64_t new_offset;
};

static void flush_post(const struct method_ctx *m, const struct window_batch *b,
		       struct send_chain *chain)
{
	uint32_t slot = window_slot_of(m->w, b->seq);
	struct flush_words *words = (struct flush_words *)m->words + slot;
	const struct rs_mr_desc *word = &m->grant->write_offset;
	size_t at = slot * sizeof(struct flush_words);
	uint64_t at_pool = method_in_pool(m, b->offset);
	words->new_offset = htole64(m->log_start + at_pool + b->length);
	send_method_write_batch(m, chain, &m->data, at_pool, b);
	chain_flush(chain, &m->data, at_pool, b->length, UINT64_MAX,
		    RS_POST_MORE);
	chain_atomic_write(chain, word, 0, CHAIN_WORDS, at, UINT64_MAX,
			   RS_POST_FENCE | RS_POST_MORE);
	chain_flush(chain, word, 0, 8, b->seq, RS_POST_SIGNALED);
}

/* The last flush of batch seq's chain completed: the offset written
 * behind the batch is persistent. */
static int flush_take(const struct method_ctx *m, const struct method_event *ev,
		      struct method_confirm *out, struct rs_error *err)
{
	return send_method_take_own(m, ev, RS_OP_FLUSH, out, err);
}

const struct send_method method_flush = {
    .id = RS_METHOD_FLUSH,
    .words_per_slot = sizeof(struct flush_words),
    .post = flush_post,
    .take = flush_take,
};
