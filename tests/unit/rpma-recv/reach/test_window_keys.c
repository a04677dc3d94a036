/* A windowed writer's keys: which it may name, and how far behind the
 * head and how long a window covered committed bytes before it moved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "reach/window_keys.h"

/* Two keys live at a time: each binding retires the key two back. */
static void the_newest_and_the_one_before(void **state)
{
	(void)state;
	struct recv_window_keys k = {0};
	assert_false(recv_window_keys_holds(&k, 0));
	assert_false(recv_window_keys_holds(&k, 7));
	recv_window_keys_bound(&k, 7, true, 1000, 1000, 10);
	assert_true(recv_window_keys_holds(&k, 7));
	assert_false(recv_window_keys_holds(&k, 0));
	recv_window_keys_bound(&k, 8, false, 1100, 1100, 20);
	assert_true(recv_window_keys_holds(&k, 7));
	assert_true(recv_window_keys_holds(&k, 8));
	recv_window_keys_bound(&k, 9, false, 1500, 1500, 30);
	assert_false(recv_window_keys_holds(&k, 7));
	assert_true(recv_window_keys_holds(&k, 8));
	assert_true(recv_window_keys_holds(&k, 9));
	recv_window_keys_bound(&k, 10, true, 1000, 1000,
			       40); /* head moved back */
	assert_false(recv_window_keys_holds(&k, 9));
	assert_true(recv_window_keys_holds(&k, 10));
}

/* Moving the window of the key before helps only while it was bound
 * below the head: on a rxe-like device too, where each reaches from its
 * region's start (reach), not from the head it was bound at. */
static void only_a_window_bound_below_the_head_moves(void **state)
{
	(void)state;
	struct recv_window_keys k = {0};
	recv_window_keys_bound(&k, 7, true, 0, 1000, 10);
	assert_false(recv_window_keys_behind(&k, 1000)); /* none before */
	recv_window_keys_bound(&k, 8, false, 0, 1100, 20);
	assert_true(recv_window_keys_behind(&k, 1100)); /* 7's at 1000 */
	recv_window_keys_bound(&k, 9, false, 0, 1100, 30);
	assert_false(recv_window_keys_behind(&k, 1100)); /* 8's at 1100 */
	assert_true(recv_window_keys_behind(&k, 1200));
}

/* The window that moves covered [where it was bound, head) since then;
 * a reset after the head moved back measures nothing. */
static void reach_is_measured_when_a_window_moves(void **state)
{
	(void)state;
	struct recv_window_keys k = {0};
	recv_window_keys_bound(&k, 1, true, 1000, 1000, 100);
	recv_window_keys_bound(&k, 2, false, 1100, 1100,
			       200); /* the unbound one */
	assert_int_equal(k.reach_bytes_max, 0);
	recv_window_keys_bound(&k, 3, false, 1600, 1600,
			       700); /* key 1's, at 1000 */
	assert_int_equal(k.reach_bytes_max, 600);
	assert_int_equal(k.reach_ns_max, 600);
	recv_window_keys_bound(&k, 4, false, 1700, 1700,
			       750); /* key 2's, at 1100 */
	assert_int_equal(k.reach_bytes_max, 600);
	assert_int_equal(k.reach_ns_max, 600);
	recv_window_keys_bound(&k, 5, true, 0, 0, 5000);
	assert_int_equal(k.reach_bytes_max, 600);
	assert_int_equal(k.reach_ns_max, 600);
}

/* A lone commit's reset takes both windows off what was committed: what
 * each covered until then counts, and neither key is held after it. */
static void a_lone_reset_counts_both(void **state)
{
	(void)state;
	struct recv_window_keys k = {0};
	recv_window_keys_bound(&k, 1, true, 1000, 1000, 100);
	recv_window_keys_bound(&k, 2, false, 1100, 1100, 200);
	recv_window_keys_bound(&k, 3, true, 1150, 1150, 260);
	/* key 1's window, bound at 1000: 150 bytes for 160 ns; key 2's, at
	 * 1100: 50 bytes for 60 ns */
	assert_int_equal(k.reach_bytes_max, 150);
	assert_int_equal(k.reach_ns_max, 160);
	assert_false(recv_window_keys_holds(&k, 1));
	assert_false(recv_window_keys_holds(&k, 2));
	assert_true(recv_window_keys_holds(&k, 3));
	assert_false(recv_window_keys_behind(&k, 1150));
}

/* At the session's end both windows go: what they covered counts. */
static void the_end_counts_what_both_covered(void **state)
{
	(void)state;
	struct recv_window_keys k = {0};
	recv_window_keys_end(&k, 5000, 10);
	assert_int_equal(k.reach_bytes_max, 0);
	recv_window_keys_bound(&k, 1, true, 1000, 1000, 100);
	recv_window_keys_bound(&k, 2, false, 1200, 1200, 200);
	recv_window_keys_end(&k, 1300, 900);
	assert_int_equal(k.reach_bytes_max, 300); /* key 1's, from 1000 */
	assert_int_equal(k.reach_ns_max, 800);
}

/* Where a device lets a window reach back to its region's start, the
 * reach counts from there, not from the head it was bound at. */
static void a_window_reaches_from_its_region(void **state)
{
	(void)state;
	struct recv_window_keys k = {0};
	recv_window_keys_bound(&k, 1, true, 0, 1000, 100);
	recv_window_keys_bound(&k, 2, false, 1024, 1100, 200);
	recv_window_keys_bound(&k, 3, false, 1024, 1300, 300); /* key 1's */
	assert_int_equal(k.reach_bytes_max, 1300);
	recv_window_keys_bound(&k, 4, false, 1024, 1500, 400); /* key 2's */
	assert_int_equal(k.reach_bytes_max, 1300);
	recv_window_keys_end(&k, 2000, 500);
	assert_int_equal(k.reach_bytes_max, 1300);
	assert_true(recv_window_keys_holds(&k, 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_newest_and_the_one_before),
	    cmocka_unit_test(only_a_window_bound_below_the_head_moves),
	    cmocka_unit_test(reach_is_measured_when_a_window_moves),
	    cmocka_unit_test(a_lone_reset_counts_both),
	    cmocka_unit_test(the_end_counts_what_both_covered),
	    cmocka_unit_test(a_window_reaches_from_its_region),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
