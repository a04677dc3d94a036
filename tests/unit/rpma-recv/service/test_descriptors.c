/* The receiver's open files (service/descriptors.c): once the logs are
 * open, a limit that leaves fewer than max-senders' two descriptors each
 * (besides 32 spare) is said, with the senders it leaves room for and
 * the limit to raise to; a request refused for want of one is said at
 * most once in ten seconds, with how many since. The limit is lowered
 * here and descriptors opened up to it; stderr is a file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stderr_capture.h"

#include "metrics/clock.h"
#include "service/descriptors.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define LIMIT 200u
#define HELD_MAX 256

/* The descriptors open in this process now. */
static unsigned open_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the listing's own */
}

/* Descriptors the test holds, as the logs' pools and inboxes would. */
static int held[HELD_MAX];
static unsigned nheld;

/* Holds more until n are open in all (the capture's two counted). */
static void hold_until_open(unsigned n)
{
	while (open_count() < n) {
		assert_true(nheld < HELD_MAX);
		held[nheld] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		assert_true(held[nheld] >= 0);
		nheld++;
	}
	assert_int_equal(open_count(), n);
}

static struct rlimit was;

static int lower_the_limit(void **state)
{
	(void)state;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &was))
		return -1;
	rl = was;
	rl.rlim_cur = LIMIT;
	return setrlimit(RLIMIT_NOFILE, &rl);
}

static int restore_the_limit(void **state)
{
	(void)state;
	while (nheld)
		close(held[--nheld]);
	return setrlimit(RLIMIT_NOFILE, &was);
}

/* What check_room says for max_senders with n descriptors open while it
 * runs. */
static const char *check_with_open(unsigned n, unsigned max_senders)
{
	stderr_capture_start();
	hold_until_open(n);
	recv_descriptors_check_room(max_senders);
	return stderr_capture_end();
}

/* 200 descriptors: 32 spare and 10 senders' 20 leave 148 for the logs;
 * one more and it is said, with room for 9, and the limit that would do. */
static void a_limit_too_low_for_max_senders_is_said(void **state)
{
	(void)state;
	assert_string_equal(check_with_open(LIMIT - 32 - 20, 10), "");
	const char *said = check_with_open(LIMIT - 32 - 20 + 1, 10);
	assert_non_null(strstr(said, "the open-file limit (200) leaves room "
				     "for 9 senders of max-senders 10 (the "
				     "logs hold 149): raise it to 201"));
	assert_non_null(strstr(said, "past it senders are refused as full"));
	/* fewer senders asked for: room enough again */
	assert_string_equal(check_with_open(LIMIT - 32 - 20 + 1, 9), "");
}

/* The logs hold nearly all of it: room for no sender. */
static void a_limit_the_logs_fill_leaves_room_for_none(void **state)
{
	(void)state;
	const char *said = check_with_open(LIMIT - 10, 1);
	assert_non_null(strstr(said, "leaves room for 0 senders of "
				     "max-senders 1 (the logs hold 190): "
				     "raise it to 224"));
}

/* A refusal for want of a descriptor: said with the limit, then counted
 * without a word for ten seconds, then said with how many were not. */
static void a_full_receiver_says_so_once_in_ten_seconds(void **state)
{
	(void)state;
	struct recv_descriptors_starved st = {0};
	stderr_capture_start();
	recv_descriptors_say_starved(&st, "10.0.0.1");
	const char *said = stderr_capture_end();
	assert_non_null(strstr(said, "refusing sender 10.0.0.1 as full: the "
				     "receiver has as many files open as its "
				     "limit allows (200; 0 more refused"));
	assert_int_equal(st.unsaid, 0);
	stderr_capture_start();
	recv_descriptors_say_starved(&st, "10.0.0.2");
	recv_descriptors_say_starved(&st, "10.0.0.3");
	assert_string_equal(stderr_capture_end(), "");
	assert_int_equal(st.unsaid, 2);
	/* ten seconds later */
	st.said_ns = recv_now_ns() - 10000000000ull - 1;
	stderr_capture_start();
	recv_descriptors_say_starved(&st, "10.0.0.4");
	said = stderr_capture_end();
	assert_non_null(strstr(said, "refusing sender 10.0.0.4 as full"));
	assert_non_null(strstr(said, "(200; 2 more refused for it since last "
				     "said)"));
	assert_int_equal(st.unsaid, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		a_limit_too_low_for_max_senders_is_said, lower_the_limit,
		restore_the_limit),
	    cmocka_unit_test_setup_teardown(
		a_limit_the_logs_fill_leaves_room_for_none, lower_the_limit,
		restore_the_limit),
	    cmocka_unit_test_setup_teardown(
		a_full_receiver_says_so_once_in_ten_seconds, lower_the_limit,
		restore_the_limit),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
