/* The session token of a log's writer, as the service's thread may see
 * it: a request to take a session over passes max-senders only when it
 * presents the token the log's writer holds now (the receiver issued it
 * and still holds it); anything else counts like any request. The log's
 * thread sets it when it grants a writer and clears it when that writer's
 * session ends. */
#ifndef RECV_HELD_TOKEN_H
#define RECV_HELD_TOKEN_H

#include "proto/descriptor.h"

#include <pthread.h>
#include <stdbool.h>

struct recv_held_token {
	pthread_mutex_t lock;
	bool held;
	struct rs_session_token token;
};

void recv_held_token_init(struct recv_held_token *h);
void recv_held_token_fini(struct recv_held_token *h);
void recv_held_token_set(struct recv_held_token *h,
			 const struct rs_session_token *token);
void recv_held_token_clear(struct recv_held_token *h);
/* Whether token is the one held (compared in constant time). */
bool recv_held_token_matches(struct recv_held_token *h,
			     const struct rs_session_token *token);

#endif
