/* Staged on the sender's side: the batch is written into the receiver's
 * DRAM staging ring, in the slot of its credit, and a staged commit
 * request asks the receiver to copy it into the pool, persist it and
 * commit; its reply is the confirmation. A batch must fit a staging slot:
 * that is this method's bound on the receiver's grant. */
#include "methods/commit_message.h"
#include "methods/send_method.h"

static uint32_t staged_batch_cap(const struct rs_accept_info *info)
{
	return info->staging_slot_size;
}

static void staged_post(const struct method_ctx *m,
			const struct window_batch *b, struct send_chain *chain)
{
	uint64_t ring_offset = (uint64_t)window_slot_of(m->w, b->seq) *
			       m->grant->staging_slot_size;
	send_method_write_batch(m, chain, &m->grant->staging, ring_offset, b);
	commit_message_post(m, b, RS_MSG_STAGED_COMMIT, ring_offset, chain);
}

const struct send_method method_staged = {
    .id = RS_METHOD_STAGED,
    .batch_cap = staged_batch_cap,
    .cap_shrunk = "its staging slots are smaller",
    .posts_message = true,
    .post = staged_post,
    .take = commit_message_take,
};
