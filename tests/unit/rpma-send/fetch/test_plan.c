/* rpma-send --fetch's rules (fetch/plan.h): where a read starts, what the
 * log's state means to a reader, which bytes come from the pool and in
 * what chunks, and when bytes read from the pool still stand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fetch/plan.h"

/* 100 bytes pruned, 100 to 300 archived, the pool from 300 to 500. */
static const struct fetch_log log_ = {
    .first = 100, .base = 300, .end = 500, .content = 2};

static void start_points(void **state)
{
	(void)state;
	struct fetch_start from = {.from = 150}, tail = {.at_end = true};
	assert_int_equal(fetch_start_at(&from, &log_), 150);
	assert_int_equal(fetch_start_at(&tail, &log_), 500);
}

static void what_a_state_means(void **state)
{
	(void)state;
	assert_int_equal(fetch_check(&log_, 2, 100), FETCH_GO);
	assert_int_equal(fetch_check(&log_, 2, 500), FETCH_GO);
	assert_int_equal(fetch_check(&log_, 3, 200), FETCH_REPLACED);
	assert_int_equal(fetch_check(&log_, 2, 99), FETCH_GONE);
	assert_int_equal(fetch_check(&log_, 2, 501), FETCH_SHORT);
}

static void chunks_come_from_one_place(void **state)
{
	(void)state;
	/* The grant let the reader read 150 bytes of the pool in place. */
	struct read_prefix prefix = {.base = 300, .len = 150}, none = {0};
	assert_false(fetch_from_pool(&log_, &prefix, 299, 1));
	assert_true(fetch_from_pool(&log_, &prefix, 300, 150));
	assert_true(fetch_from_pool(&log_, &prefix, 440, 10));
	/* Committed after the grant: through the ring. */
	assert_false(fetch_from_pool(&log_, &prefix, 440, 11));
	assert_false(fetch_from_pool(&log_, &prefix, 450, 1));
	assert_false(fetch_from_pool(&log_, &none, 400, 1)); /* no read grant */
	/* The pool started over since the grant: its prefix is other bytes. */
	struct fetch_log rotated = log_;
	rotated.base = 400;
	assert_false(fetch_from_pool(&rotated, &prefix, 400, 1));
	/* An archived chunk stops at the pool's start. */
	assert_int_equal(fetch_chunk_len(&log_, 250, 500, 64), 50);
	assert_int_equal(fetch_chunk_len(&log_, 200, 500, 64), 64);
	/* A pool chunk stops at the end it was told. */
	assert_int_equal(fetch_chunk_len(&log_, 480, 500, 64), 20);
	assert_int_equal(fetch_chunk_len(&log_, 500, 500, 64), 0);
	/* A reader told an earlier end never reads past it. */
	assert_int_equal(fetch_chunk_len(&log_, 250, 260, 64), 10);
}

static void pool_bytes_stand_until_the_pool_starts_over(void **state)
{
	(void)state;
	struct fetch_log grown = log_, rotated = log_, replaced = log_;
	grown.end = 900;
	rotated.base = 500;
	replaced.content = 3;
	assert_true(fetch_still_stands(&log_, &grown));
	assert_false(fetch_still_stands(&log_, &rotated));
	assert_false(fetch_still_stands(&log_, &replaced));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(start_points),
	    cmocka_unit_test(what_a_state_means),
	    cmocka_unit_test(chunks_come_from_one_place),
	    cmocka_unit_test(pool_bytes_stand_until_the_pool_starts_over),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
