/* The commit request and its reply, shared by the methods whose receiver
 * persists on request (GPSPM, staged): after the data write, one message
 * in the batch's session slot asks for the commit; the receiver's
 * COMMIT_DONE says the write offset now covers it. commit_message.c also
 * holds send_method_take_own (declared in methods/send_method.h), the take
 * of apm and flush, which reads any message as a commit reply: so the
 * table (send_method.c) needs nothing of this file. */
#ifndef SEND_COMMIT_MESSAGE_H
#define SEND_COMMIT_MESSAGE_H

#include "methods/send_method.h"

/* Adds the request of type (RS_MSG_COMMIT or RS_MSG_STAGED_COMMIT) for b,
 * whose bytes sit at ring_offset of the receiver's staging ring (staged;
 * else 0), to the chain. */
void commit_message_post(const struct method_ctx *m,
			 const struct window_batch *b, uint8_t type,
			 uint64_t ring_offset, struct send_chain *chain);

/* A method's take for commit replies: every other completion is no news. */
int commit_message_take(const struct method_ctx *m,
			const struct method_event *ev,
			struct method_confirm *out, struct rs_error *err);

#endif
