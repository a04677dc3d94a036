/* The two-key rule of a windowed writer (session/window_keys.h), the one
 * both ends follow: a key holds while it is the newest bound or the one
 * before; a binding after a lone commit leaves only the new one; no key is
 * 0. The receiver's session (test_window_keys in rpma-recv/sender) and the
 * sender's replica (test_replica_keys) are tested on their own use of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "session/window_keys.h"

static void two_keys_hold(void **state)
{
	(void)state;
	struct rs_window_keys k = {0};
	assert_false(rs_window_keys_hold(&k, 0)); /* none holds: nothing */
	rs_window_keys_bind(&k, 0x101, false);
	assert_true(rs_window_keys_hold(&k, 0x101));
	assert_false(rs_window_keys_hold(&k, 0));
	rs_window_keys_bind(&k, 0x202, false);
	assert_true(rs_window_keys_hold(&k, 0x101)); /* the one before */
	assert_true(rs_window_keys_hold(&k, 0x202));
	rs_window_keys_bind(&k, 0x303, false);
	assert_false(rs_window_keys_hold(&k, 0x101)); /* two back: gone */
	assert_true(rs_window_keys_hold(&k, 0x202));
	assert_true(rs_window_keys_hold(&k, 0x303));
	assert_int_equal(k.newest, 0x303);
	assert_int_equal(k.before, 0x202);
}

static void a_lone_commit_revokes_the_older(void **state)
{
	(void)state;
	struct rs_window_keys k = {0};
	rs_window_keys_bind(&k, 0x101, false);
	rs_window_keys_bind(&k, 0x202, false);
	rs_window_keys_bind(&k, 0x303, true);
	assert_false(rs_window_keys_hold(&k, 0x202));
	assert_false(rs_window_keys_hold(&k, 0x101));
	assert_true(rs_window_keys_hold(&k, 0x303));
	assert_int_equal(k.before, 0);
	/* the next binding after it keeps it as the one before */
	rs_window_keys_bind(&k, 0x404, false);
	assert_true(rs_window_keys_hold(&k, 0x303));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(two_keys_hold),
	    cmocka_unit_test(a_lone_commit_revokes_the_older),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
