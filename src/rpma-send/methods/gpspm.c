/* GPSPM on the sender's side: the batch is written in place into the pool's
 * data range, then a commit request asks the receiver to persist it and
 * commit the write offset; its reply is the confirmation. Correct on any
 * platform, page-cache files included. */
#include "methods/commit_message.h"
#include "methods/send_method.h"

static void gpspm_post(const struct method_ctx *m, const struct window_batch *b,
		       struct send_chain *chain)
{
	send_method_write_batch(m, chain, &m->data,
				method_in_pool(m, b->offset), b);
	commit_message_post(m, b, RS_MSG_COMMIT, 0, chain);
}

const struct send_method method_gpspm = {
    .id = RS_METHOD_GPSPM,
    .posts_message = true,
    .post = gpspm_post,
    .take = commit_message_take,
};
