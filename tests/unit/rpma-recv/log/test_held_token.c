/* The token of a log's writer as the service's thread checks a takeover
 * against it (log/held_token.h): none held matches nothing, not even a
 * token of zeros; the held one matches itself only; cleared, nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "log/held_token.h"

#include <string.h>

static void only_the_held_token_matches(void **state)
{
	(void)state;
	struct recv_held_token h;
	recv_held_token_init(&h);
	struct rs_session_token zeros, t, other;
	memset(&zeros, 0, sizeof(zeros));
	memset(&t, 0x5a, sizeof(t));
	memcpy(&other, &t, sizeof(other));
	((unsigned char *)&other)[sizeof(other) - 1] ^= 1;
	assert_false(recv_held_token_matches(&h, &zeros));
	assert_false(recv_held_token_matches(&h, &t));
	recv_held_token_set(&h, &t);
	assert_true(recv_held_token_matches(&h, &t));
	assert_false(recv_held_token_matches(&h, &other)); /* one bit off */
	assert_false(recv_held_token_matches(&h, &zeros));
	recv_held_token_clear(&h);
	assert_false(recv_held_token_matches(&h, &t));
	assert_false(recv_held_token_matches(&h, &zeros));
	recv_held_token_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(only_the_held_token_matches),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
