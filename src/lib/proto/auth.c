#include "proto/auth.h"

#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* Binds the answer to this protocol, so a MAC made for something else with
 * the same key is no answer here. */
static const char auth_label[] = "rpma-ship auth v2";

/* What a key path that is not a regular file is, for the message. */
static const char *kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	return "not a regular file";
}

/* Why path could not be opened, and what to do about it. */
static int open_failed(const char *path, int e, struct rs_error *err)
{
	if (e == ENOENT || e == ENOTDIR)
		return rs_error_set(
		    err, RS_E_INVAL, e,
		    "cannot open auth key %s: %s: give the file "
		    "that holds the shared key (the same file "
		    "on the sender and the receiver)",
		    path, strerror(e));
	if (e == EACCES || e == EPERM) {
		const struct passwd *pw = getpwuid(geteuid());
		return rs_error_set(err, RS_E_INVAL, e,
				    "cannot open auth key %s: permission "
				    "denied: it must be readable by this user "
				    "(%s), its owner",
				    path, pw ? pw->pw_name : "this user");
	}
	return rs_error_set(err, RS_E_INVAL, e, "cannot open auth key %s: %s",
			    path, strerror(e));
}

int rs_auth_key_load(const char *path, struct rs_auth_key *key,
		     struct rs_error *err)
{
	if (!*path)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "auth key: an empty file name; give the "
				    "key FILE");
	/* O_NONBLOCK: a FIFO with no writer must be refused, not waited
	 * for; it changes nothing for a regular file. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return open_failed(path, errno, err);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return open_failed(path, e, err);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return rs_error_set(
		    err, RS_E_INVAL, 0,
		    "auth key %s is %s: give the regular file "
		    "that holds the key (make one with `head -c "
		    "32 /dev/urandom > FILE; chmod 600 FILE`)",
		    path, kind_of(st.st_mode));
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		close(fd);
		return rs_error_set(
		    err, RS_E_INVAL, 0,
		    "auth key %s is open to its group or others; "
		    "restrict it with chmod 600",
		    path);
	}
	ssize_t n = read(fd, key->bytes, sizeof(key->bytes));
	uint8_t more;
	bool too_long =
	    n == (ssize_t)sizeof(key->bytes) && read(fd, &more, 1) > 0;
	close(fd);
	if (n < RS_AUTH_KEY_MIN || too_long) {
		return rs_error_set(
		    err, RS_E_INVAL, 0,
		    "auth key %s must hold %d to %d bytes; make "
		    "one with `head -c 32 /dev/urandom > %s`",
		    path, RS_AUTH_KEY_MIN, RS_AUTH_KEY_MAX, path);
	}
	key->len = (size_t)n;
	return 0;
}

int rs_auth_random(void *buf, size_t len, struct rs_error *err)
{
	if (getrandom(buf, len, 0) == (ssize_t)len)
		return 0;
	return rs_error_set(err, RS_E_PROVIDER, errno,
			    "cannot draw random bytes: %s", strerror(errno));
}

void rs_auth_mac(const struct rs_auth_key *key,
		 const uint8_t nonce[RS_AUTH_NONCE_SIZE],
		 const struct rs_session_token *token,
		 uint8_t mac[RS_AUTH_MAC_SIZE])
{
	const size_t label = sizeof(auth_label) - 1;
	uint8_t msg[sizeof(auth_label) - 1 + RS_AUTH_NONCE_SIZE +
		    RS_SESSION_TOKEN_SIZE];
	memcpy(msg, auth_label, label);
	memcpy(msg + label, nonce, RS_AUTH_NONCE_SIZE);
	memcpy(msg + label + RS_AUTH_NONCE_SIZE, token->bytes,
	       RS_SESSION_TOKEN_SIZE);
	unsigned len = RS_AUTH_MAC_SIZE;
	HMAC(EVP_sha256(), key->bytes, (int)key->len, msg, sizeof(msg), mac,
	     &len);
}

bool rs_auth_check(const struct rs_auth_key *key,
		   const uint8_t nonce[RS_AUTH_NONCE_SIZE],
		   const struct rs_session_token *token,
		   const uint8_t mac[RS_AUTH_MAC_SIZE])
{
	uint8_t want[RS_AUTH_MAC_SIZE];
	rs_auth_mac(key, nonce, token, want);
	return CRYPTO_memcmp(want, mac, RS_AUTH_MAC_SIZE) == 0;
}
