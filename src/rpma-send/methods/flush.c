/* Flush on the sender's side (IBTA 1.5, librpma 1.3's native flush). The
 * batch is written in place and an RDMA FLUSH makes it persistent (the
 * responder answers only once the range is persistent, whatever DDIO
 * does). Then, and only then, the new write offset is stored from this
 * slot's word by an RDMA ATOMIC WRITE and a last RDMA FLUSH makes it
 * persistent; that completion confirms the batch. No message, no receiver
 * CPU per commit.
 *
 * "Only then" is kept one of two ways. A FLUSH is answered like a READ,
 * and a request after a READ may be executed before its answer is back,
 * so the atomic write must wait for the data flush's answer:
 * - a batch alone in flight (a line from a pipe) posts all four at once,
 *   the atomic write fenced: the device holds it until the flush is
 *   answered, and the sender wakes once per commit;
 * - a batch behind others waits for its data flush's completion and posts
 *   the second half then: a fence would hold the whole send queue, the
 *   next batches' writes a round trip each.
 * The last FLUSH needs neither: a FLUSH is executed after what the queue
 * pair placed before it, the ATOMIC WRITE included. Data flushes complete
 * in the order posted, so the offsets are stored in order too. */
#include "methods/send_method.h"

#include <endian.h>

/* The write offset each credit slot stores. */
struct flush_words {
	uint64_t new_offset;
};

/* A data flush's wr_id: the batch's seq with this bit, so that its
 * completion is told from the offset's. */
#define FLUSH_DATA_DONE (1ull << 32)

/* Batch seq's offset, from its slot's word, and the flush of that word
 * (flags: the atomic write's, RS_POST_FENCE or 0). */
static void post_offset(const struct method_ctx *m, uint32_t seq,
			struct send_chain *chain, unsigned flags)
{
	const struct window_batch *b = window_batch(m->w, seq);
	uint32_t slot = window_slot_of(m->w, seq);
	struct flush_words *words = (struct flush_words *)m->words + slot;
	const struct rs_mr_desc *word = &m->grant->write_offset;
	size_t at = slot * sizeof(struct flush_words);
	words->new_offset =
	    htole64(m->log_start + method_in_pool(m, b->offset) + b->length);
	chain_atomic_write(chain, word, 0, CHAIN_WORDS, at, UINT64_MAX,
			   flags | RS_POST_MORE);
	chain_flush(chain, word, 0, 8, seq, RS_POST_SIGNALED);
}

static void flush_post(const struct method_ctx *m, const struct window_batch *b,
		       struct send_chain *chain)
{
	uint64_t at_pool = method_in_pool(m, b->offset);
	send_method_write_batch(m, chain, &m->data, at_pool, b);
	if (m->inflight > 1) {
		chain_flush(chain, &m->data, at_pool, b->length,
			    FLUSH_DATA_DONE | b->seq, RS_POST_SIGNALED);
		return;
	}
	chain_flush(chain, &m->data, at_pool, b->length, UINT64_MAX,
		    RS_POST_MORE);
	post_offset(m, b->seq, chain, RS_POST_FENCE);
}

/* Batch seq's data flush completed: its offset goes out. */
static void flush_then(const struct method_ctx *m,
		       const struct method_event *ev, struct send_chain *chain)
{
	if (ev->op == RS_OP_FLUSH && (ev->wr_id & FLUSH_DATA_DONE))
		post_offset(m, (uint32_t)ev->wr_id, chain, 0);
}

/* The offset's flush of batch seq completed: the offset written behind
 * the batch is persistent. A data flush's completion is no news. */
static int flush_take(const struct method_ctx *m, const struct method_event *ev,
		      struct method_confirm *out, struct rs_error *err)
{
	if (ev->op == RS_OP_FLUSH && (ev->wr_id & FLUSH_DATA_DONE))
		return 0;
	return send_method_take_own(m, ev, RS_OP_FLUSH, out, err);
}

const struct send_method method_flush = {
    .id = RS_METHOD_FLUSH,
    .words_per_slot = sizeof(struct flush_words),
    .post = flush_post,
    .take = flush_take,
    .then = flush_then,
};
