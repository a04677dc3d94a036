/* Shared-secret authentication of a sender (--auth-key on both sides): the
 * receiver sends a random challenge, the sender answers with
 * HMAC-SHA256(key, label || challenge), and only then does the receiver
 * describe any memory. Keys are files readable by their owner only. */
#ifndef RS_AUTH_H
#define RS_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RS_AUTH_KEY_MIN 16
#define RS_AUTH_KEY_MAX 4096
#define RS_AUTH_NONCE_SIZE 32
#define RS_AUTH_MAC_SIZE 32

struct rs_auth_key {
	uint8_t bytes[RS_AUTH_KEY_MAX];
	size_t len;
};

/* Loads the key file. Returns 0, or -1 with a one-line reason in err. */
int rs_auth_key_load(const char *path, struct rs_auth_key *key, char *err,
		     size_t errlen);

/* For --auth-key: loads PATH into a key kept for the process and sets *key,
 * or sets it to NULL without a PATH. Returns 0, or -1 after reporting. */
int rs_auth_key_option(const char *path, const struct rs_auth_key **key);

/* Fills nonce with random bytes. Returns 0, or -1. */
int rs_auth_nonce(uint8_t nonce[RS_AUTH_NONCE_SIZE]);

void rs_auth_mac(const struct rs_auth_key *key,
		 const uint8_t nonce[RS_AUTH_NONCE_SIZE],
		 uint8_t mac[RS_AUTH_MAC_SIZE]);

/* True when mac answers nonce under key (compared in constant time). */
bool rs_auth_check(const struct rs_auth_key *key,
		   const uint8_t nonce[RS_AUTH_NONCE_SIZE],
		   const uint8_t mac[RS_AUTH_MAC_SIZE]);

#endif
