#include "log/held_token.h"

#include <string.h>

void recv_held_token_init(struct recv_held_token *h)
{
	memset(h, 0, sizeof(*h));
	pthread_mutex_init(&h->lock, 0);
}

void recv_held_token_fini(struct recv_held_token *h)
{
	recv_held_token_clear(h);
	pthread_mutex_destroy(&h->lock);
}

void recv_held_token_set(struct recv_held_token *h,
			 const struct rs_session_token *token)
{
	pthread_mutex_lock(&h->lock);
	h->token = *token;
	h->held = true;
	pthread_mutex_unlock(&h->lock);
}

void recv_held_token_clear(struct recv_held_token *h)
{
	pthread_mutex_lock(&h->lock);
	memset(&h->token, 0, sizeof(h->token));
	h->held = false;
	pthread_mutex_unlock(&h->lock);
}

/* A secret: compared whole, whatever byte differs first. */
static bool same(const struct rs_session_token *a,
		 const struct rs_session_token *b)
{
	unsigned char diff = 0;
	for (size_t i = 0; i < sizeof(a->bytes); i++)
		diff |= a->bytes[i] ^ b->bytes[i];
	return diff == 0;
}

bool recv_held_token_matches(struct recv_held_token *h,
			     const struct rs_session_token *token)
{
	pthread_mutex_lock(&h->lock);
	bool match = h->held && same(&h->token, token);
	pthread_mutex_unlock(&h->lock);
	return match;
}
