/* Shared-secret authentication of a sender (--auth-key on both sides): the
 * receiver sends a random challenge, the sender answers with
 * HMAC-SHA256(key, label || challenge), and only then does the receiver
 * describe any memory. Keys are files readable by their owner only. */
#ifndef RS_AUTH_H
#define RS_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_error;

#define RS_AUTH_KEY_MIN 16
#define RS_AUTH_KEY_MAX 4096
#define RS_AUTH_NONCE_SIZE 32
#define RS_AUTH_MAC_SIZE 32

/* A random number the receiver hands each granted session. A sender that
 * lost its connection presents it to take its own session over at once,
 * instead of being refused as busy until the receiver notices the old
 * connection is dead. With a key, the answer to the challenge covers it. */
#define RS_SESSION_TOKEN_SIZE 16
struct rs_session_token {
	uint8_t bytes[RS_SESSION_TOKEN_SIZE];
};

struct rs_auth_key {
	uint8_t bytes[RS_AUTH_KEY_MAX];
	size_t len;
};

/* Loads a key file, refusing one that others can read. RS_E_INVAL with
 * the reason and the fix when it cannot be used. */
int rs_auth_key_load(const char *path, struct rs_auth_key *key,
		     struct rs_error *err);

/* Fills buf with len random bytes (nonces, session tokens). */
int rs_auth_random(void *buf, size_t len, struct rs_error *err);

/* The answer to a challenge: HMAC-SHA256(key, label || nonce || token),
 * token being the one the sender presented to take a session over (all
 * zero when it presented none), so a takeover needs the key too. */
void rs_auth_mac(const struct rs_auth_key *key,
		 const uint8_t nonce[RS_AUTH_NONCE_SIZE],
		 const struct rs_session_token *token,
		 uint8_t mac[RS_AUTH_MAC_SIZE]);

/* True when mac answers nonce and token under key (in constant time). */
bool rs_auth_check(const struct rs_auth_key *key,
		   const uint8_t nonce[RS_AUTH_NONCE_SIZE],
		   const struct rs_session_token *token,
		   const uint8_t mac[RS_AUTH_MAC_SIZE]);

#endif
