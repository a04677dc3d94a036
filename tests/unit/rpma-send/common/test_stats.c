/* The sender's statistics: percentiles from the bounded histogram. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/phases.h"
#include "common/stats.h"

#include <stdio.h>
#include <string.h>

static void empty_has_no_percentile(void **state)
{
	(void)state;
	struct send_stats st;
	send_stats_start(&st);
	assert_int_equal(send_stats_percentile(&st, 0.5), 0);
}

static void percentiles_within_an_eighth(void **state)
{
	(void)state;
	struct send_stats st;
	send_stats_start(&st);
	/* 1..1000 us: p50 ~ 500 us, p90 ~ 900 us, p99 ~ 990 us. */
	for (uint64_t us = 1; us <= 1000; us++)
		send_stats_commit(&st, 64, us * 1000, send_stats_now_ns());
	assert_int_equal(st.batches, 1000);
	assert_int_equal(st.bytes, 64000);
	const double p[] = {0.5, 0.9, 0.99};
	const double want[] = {500e3, 900e3, 990e3};
	for (int i = 0; i < 3; i++) {
		double got = (double)send_stats_percentile(&st, p[i]);
		assert_true(got >= want[i]);
		assert_true(got <= want[i] * 1.125 + 1);
	}
}

static void streaming_time_runs_from_first_post_to_last_commit(void **state)
{
	(void)state;
	struct send_stats st;
	send_stats_start(&st);
	assert_true(send_stats_streaming(&st) == 0);
	uint64_t now = send_stats_now_ns();
	send_stats_posted(&st, now - 2000000000ull); /* two seconds ago */
	send_stats_posted(&st, now - 1000000000ull); /* not the first */
	assert_true(send_stats_streaming(&st) == 0); /* nothing confirmed */
	send_stats_commit(&st, 64, 1000, send_stats_now_ns());
	double secs = send_stats_streaming(&st);
	assert_true(secs >= 2.0 && secs < 3.0);
	/* connecting (before the first post) is in elapsed, not streaming */
	assert_true(send_stats_elapsed(&st) < secs);
}

static void small_and_huge_values(void **state)
{
	(void)state;
	struct send_stats st;
	send_stats_start(&st);
	send_stats_commit(&st, 1, 3, send_stats_now_ns());
	assert_int_equal(send_stats_percentile(&st, 0.5), 3);
	send_stats_commit(&st, 1, UINT64_MAX, send_stats_now_ns());
	assert_true(send_stats_percentile(&st, 0.99) >= UINT64_MAX / 2);
}

/* The phases line: each phase from the end of the one before; one not
 * reached is "-" and the next counts from the last reached. */
static void phases_run_from_one_end_to_the_next(void **state)
{
	(void)state;
	const uint64_t ms = 1000000;
	struct rs_session_times t = {.begun_ns = 12 * ms,
				     .routed_ns = 15 * ms,
				     .prepared_ns = 17 * ms,
				     .answered_ns = 47 * ms,
				     .granted_ns = 0};
	struct send_stats st = {.first_post_ns = 50 * ms,
				.last_commit_ns = 150 * ms};
	struct send_phases p = {.exec_ns = 3 * ms,
				.main_ns = 10 * ms,
				.session = &t,
				.stats = &st,
				.now_ns = 151 * ms + ms / 2};
	char line[512] = {0};
	FILE *out = fmemopen(line, sizeof(line) - 1, "w");
	assert_non_null(out);
	send_phases_print(out, &p);
	fclose(out);
	assert_string_equal(line, "rpma-send: stats: phases_ms exec=3.0 "
				  "start=2.0 resolve=3.0 prepare=2.0 "
				  "answer=30.0 grant=- to_first_write=3.0 "
				  "streaming=100.0 teardown=1.5\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(empty_has_no_percentile),
	    cmocka_unit_test(percentiles_within_an_eighth),
	    cmocka_unit_test(small_and_huge_values),
	    cmocka_unit_test(
		streaming_time_runs_from_first_post_to_last_commit),
	    cmocka_unit_test(phases_run_from_one_end_to_the_next),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
