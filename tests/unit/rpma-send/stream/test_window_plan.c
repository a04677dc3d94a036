/* The batch window's size (stream/window_plan.c): the defaults for a
 * stream of unknown length, and no more buffer than a small regular file
 * fills, as a cron job backing up small files runs it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/send_config.h"
#include "stream/window_plan.h"

#define MIB (1u << 20)
#define NO_CAP UINT32_MAX
#define CREDITS 64u

static void plan_is(struct window_plan p, uint32_t batch_max, uint32_t depth)
{
	assert_int_equal(p.batch_max, batch_max);
	assert_int_equal(p.depth, depth);
}

static void a_stream_of_unknown_length_gets_the_default(void **state)
{
	(void)state;
	plan_is(window_plan_make(MIB, NO_CAP, SHIP_DEPTH_AUTO, CREDITS, 0), MIB,
		8);
	plan_is(window_plan_make(64 << 10, NO_CAP, SHIP_DEPTH_AUTO, CREDITS, 0),
		64 << 10, CREDITS);
}

static void a_large_file_gets_the_default(void **state)
{
	(void)state;
	plan_is(window_plan_make(MIB, NO_CAP, SHIP_DEPTH_AUTO, CREDITS,
				 128ull * MIB),
		MIB, 8);
}

static void one_byte_takes_one_page(void **state)
{
	(void)state;
	plan_is(window_plan_make(MIB, NO_CAP, SHIP_DEPTH_AUTO, CREDITS, 1),
		4096, SHIP_DEPTH_MIN);
}

static void a_small_file_takes_what_it_fills(void **state)
{
	(void)state;
	/* 3 KiB past two pages: three pages in one batch */
	plan_is(window_plan_make(MIB, NO_CAP, SHIP_DEPTH_AUTO, CREDITS,
				 8192 + 3000),
		3 * 4096, SHIP_DEPTH_MIN);
	/* 1 MiB: one batch of the asked size; 6 MiB: six of them */
	plan_is(window_plan_make(MIB, NO_CAP, SHIP_DEPTH_AUTO, CREDITS, MIB),
		MIB, SHIP_DEPTH_MIN);
	plan_is(
	    window_plan_make(MIB, NO_CAP, SHIP_DEPTH_AUTO, CREDITS, 6ull * MIB),
	    MIB, 6);
}

static void asked_depth_and_the_receivers_bounds_hold(void **state)
{
	(void)state;
	plan_is(window_plan_make(MIB, NO_CAP, 2, CREDITS, 1), 4096, 2);
	plan_is(window_plan_make(MIB, 256 << 10, SHIP_DEPTH_AUTO, CREDITS, 0),
		256 << 10, 32);
	plan_is(window_plan_make(MIB, 256 << 10, SHIP_DEPTH_AUTO, 8, 0),
		256 << 10, 8);
	plan_is(window_plan_make(64 << 10, NO_CAP, SHIP_DEPTH_AUTO, 8,
				 3ull * MIB + 1),
		64 << 10, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_stream_of_unknown_length_gets_the_default),
	    cmocka_unit_test(a_large_file_gets_the_default),
	    cmocka_unit_test(one_byte_takes_one_page),
	    cmocka_unit_test(a_small_file_takes_what_it_fills),
	    cmocka_unit_test(asked_depth_and_the_receivers_bounds_hold),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
