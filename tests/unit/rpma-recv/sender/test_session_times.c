/* Where a sender's session's time went on the receiver
 * (sender/session_times.c): each phase from the end of the step before
 * that happened, "-" for one that did not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sender/session_times.h"

#define MS 1000000ull

static void every_step_is_said_from_the_one_before(void **state)
{
	(void)state;
	struct recv_session_times t = {.asked_ns = 1000 * MS,
				       .admitted_ns = 1002 * MS,
				       .answered_ns = 1010 * MS,
				       .established_ns = 1011 * MS};
	recv_session_times_commit(&t, 1020 * MS);
	recv_session_times_commit(&t, 1050 * MS);
	recv_session_times_commit(&t, 1080 * MS);
	t.ended_ns = 1081 * MS;
	t.freed_ns = 1331 * MS + MS / 2;
	char line[256];
	recv_session_times_format(&t, line, sizeof(line));
	assert_string_equal(line, "phases_ms queued=2.0 setup=8.0 "
				  "to_established=1.0 to_first_commit=9.0 "
				  "streaming=60.0 to_end=1.0 teardown=250.5");
}

static void a_session_with_no_commit_says_so(void **state)
{
	(void)state;
	/* a reader, or a writer gone before its first batch: the end
	 * counts from the connection */
	struct recv_session_times t = {.asked_ns = 5 * MS,
				       .admitted_ns = 6 * MS,
				       .answered_ns = 7 * MS,
				       .established_ns = 8 * MS,
				       .ended_ns = 20 * MS,
				       .freed_ns = 21 * MS};
	char line[256];
	recv_session_times_format(&t, line, sizeof(line));
	assert_string_equal(line, "phases_ms queued=1.0 setup=1.0 "
				  "to_established=1.0 to_first_commit=- "
				  "streaming=- to_end=12.0 teardown=1.0");
}

static void a_short_buffer_is_cut_not_overrun(void **state)
{
	(void)state;
	struct recv_session_times t = {.asked_ns = MS, .admitted_ns = 2 * MS};
	char line[16];
	line[15] = 'x';
	recv_session_times_format(&t, line, sizeof(line));
	assert_int_equal(line[15], 0);
	assert_string_equal(line, "phases_ms queue");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_step_is_said_from_the_one_before),
	    cmocka_unit_test(a_session_with_no_commit_says_so),
	    cmocka_unit_test(a_short_buffer_is_cut_not_overrun),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
