/* --progress (stream/progress.h): off unless asked, and off on a stderr
 * that is no terminal unless forced; redrawn at most once a second; the
 * line's bytes, rate, elapsed time and detail, ended with a newline at
 * the finish; --progress=commits' exact line. stderr is a file here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stderr_capture.h"

#include "stream/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEC 1000000000ull

static void only_when_asked(void **state)
{
	(void)state;
	struct send_progress p;
	stderr_capture_start(); /* stderr no terminal */
	send_progress_init(&p, true, false);
	stderr_capture_end();
	assert_false(p.enabled);
	assert_false(send_progress_due(&p, 5 * SEC));
	send_progress_init(&p, false, true);
	assert_false(p.enabled);
	send_progress_init(&p, true, true);
	assert_true(p.enabled);
	assert_true(send_progress_due(&p, 0)); /* never drawn: now */
}

static void a_line_a_second(void **state)
{
	(void)state;
	struct send_progress p;
	struct send_stats st = {0};
	send_progress_init(&p, true, true);
	st.start_ns = send_stats_now_ns() - 65 * SEC; /* 1:05 ago */
	st.bytes = 65u << 20;
	stderr_capture_start();
	send_progress_draw(&p, &st, ", replica b 1 MiB behind");
	const char *line = stderr_capture_end();
	assert_non_null(strstr(line, "\rrpma-send: "));
	assert_non_null(strstr(line, " committed, 1.0 MB/s, 1:05 elapsed, "
				     "replica b 1 MiB behind "));
	assert_null(strchr(line, '\n'));
	assert_false(send_progress_due(&p, p.last_ns + SEC / 2));
	assert_true(send_progress_due(&p, p.last_ns + SEC));
	p.what = "fetched";
	stderr_capture_start();
	send_progress_finish(&p, &st, "");
	line = stderr_capture_end();
	assert_non_null(strstr(line, " fetched, "));
	assert_int_equal(line[strlen(line) - 1], '\n');
}

static void a_commit_line_is_exact(void **state)
{
	(void)state;
	stderr_capture_start();
	send_progress_commit_line(1234567890123ull);
	assert_string_equal(stderr_capture_end(),
			    "rpma-send: committed 1234567890123 input bytes\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(only_when_asked),
	    cmocka_unit_test(a_line_a_second),
	    cmocka_unit_test(a_commit_line_is_exact),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
