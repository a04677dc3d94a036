/* APM on the sender's side (direct write, read-after-write): the batch is
 * written in place; a read after it makes it persistent (the receiver
 * declared DDIO off); the new write offset, fenced behind that read, is
 * written from this slot's words; a last read makes the offset persistent,
 * and its completion is the confirmation. No receiver CPU. */
#include "methods/send_method.h"

#include <endian.h>
#include <stddef.h>

/* APM's two words per credit slot, in a region of their own. */
struct apm_words {
	uint64_t new_offset; /* the write offset we store */
	uint64_t flush_read; /* where flush reads land */
};

static void apm_post(const struct method_ctx *m, const struct window_batch *b,
		     struct send_chain *chain)
{
	uint32_t slot = window_slot_of(m->w, b->seq);
	struct apm_words *words = (struct apm_words *)m->words + slot;
	const struct rs_mr_desc *word = &m->grant->write_offset;
	size_t at = slot * sizeof(struct apm_words);
	size_t flush = at + offsetof(struct apm_words, flush_read);
	uint64_t at_pool = method_in_pool(m, b->offset);
	words->new_offset = htole64(m->log_start + at_pool + b->length);
	send_method_write_batch(m, chain, &m->data, at_pool, b);
	chain_read(chain, CHAIN_WORDS, flush, word, 0, 8, UINT64_MAX,
		   RS_POST_MORE);
	chain_write(chain, word, 0, CHAIN_WORDS, at, 8, UINT64_MAX,
		    RS_POST_FENCE | RS_POST_MORE);
	chain_read(chain, CHAIN_WORDS, flush, word, 0, 8, b->seq,
		   RS_POST_SIGNALED);
}

/* The last read of batch seq's chain completed: the offset written
 * behind the batch is persistent. */
static int apm_take(const struct method_ctx *m, const struct method_event *ev,
		    struct method_confirm *out, struct rs_error *err)
{
	return send_method_take_own(m, ev, RS_OP_READ, out, err);
}

const struct send_method method_apm = {
    .id = RS_METHOD_APM,
    .words_per_slot = sizeof(struct apm_words),
    .post = apm_post,
    .take = apm_take,
};
