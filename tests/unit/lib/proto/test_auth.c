/* Shared-secret authentication: key files, and the challenge answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "proto/auth.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_key(const char *path, const char *bytes, size_t len,
		      mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_true(write(fd, bytes, len) == (ssize_t)len);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void key_files(void **state)
{
	(void)state;
	char path[] = "/tmp/rs-test-key-XXXXXX";
	close(mkstemp(path));
	struct rs_auth_key key;
	struct rs_error err;

	write_key(path, "0123456789abcdef0123", 20, 0600);
	assert_int_equal(rs_auth_key_load(path, &key, &err), 0);
	assert_int_equal(key.len, 20);

	write_key(path, "0123456789abcdef0123", 20, 0644);
	assert_int_equal(rs_auth_key_load(path, &key, &err), RS_E_INVAL);
	assert_non_null(strstr(err.msg, "chmod 600"));

	write_key(path, "short", 5, 0600);
	assert_int_equal(rs_auth_key_load(path, &key, &err), RS_E_INVAL);
	assert_non_null(strstr(err.msg, "16 to 4096 bytes"));

	unlink(path);
	assert_int_equal(rs_auth_key_load(path, &key, &err), RS_E_INVAL);
	assert_non_null(strstr(err.msg, "cannot open auth key"));
}

static void answers(void **state)
{
	(void)state;
	struct rs_auth_key key = {.len = 32}, other = {.len = 32};
	memset(key.bytes, 7, 32);
	memset(other.bytes, 7, 32);
	other.bytes[31] = 8;
	uint8_t nonce[RS_AUTH_NONCE_SIZE], nonce2[RS_AUTH_NONCE_SIZE];
	assert_int_equal(rs_auth_random(nonce, RS_AUTH_NONCE_SIZE, 0), 0);
	assert_int_equal(rs_auth_random(nonce2, RS_AUTH_NONCE_SIZE, 0), 0);
	assert_memory_not_equal(nonce, nonce2, RS_AUTH_NONCE_SIZE);

	struct rs_session_token none = {{0}}, token;
	memset(token.bytes, 0x5a, sizeof(token.bytes));
	uint8_t mac[RS_AUTH_MAC_SIZE];
	rs_auth_mac(&key, nonce, &none, mac);
	assert_true(rs_auth_check(&key, nonce, &none, mac));
	assert_false(rs_auth_check(&other, nonce, &none, mac)); /* wrong key */
	assert_false(
	    rs_auth_check(&key, nonce2, &none, mac)); /* replayed answer */
	/* An answer for a plain connection does not take a session over. */
	assert_false(rs_auth_check(&key, nonce, &token, mac));
	mac[0] ^= 1;
	assert_false(rs_auth_check(&key, nonce, &none, mac));
	rs_auth_mac(&key, nonce, &token, mac);
	assert_true(rs_auth_check(&key, nonce, &token, mac));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(key_files),
	    cmocka_unit_test(answers),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
