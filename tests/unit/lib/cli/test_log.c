/* Log lines: unchanged on a terminal or file, with syslog priorities when
 * stderr is the journal stream $JOURNAL_STREAM names, one whole line per
 * message even from several threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/log.h"

/* stderr redirected into a temp file, so the tests read what was logged. */
struct capture {
	int file;
	int saved_stderr;
	char path[32];
};

static void capture_start(struct capture *c)
{
	strcpy(c->path, "/tmp/rs-log-XXXXXX");
	c->file = mkstemp(c->path);
	assert_true(c->file >= 0);
	c->saved_stderr = dup(STDERR_FILENO);
	assert_true(c->saved_stderr >= 0);
	assert_int_equal(dup2(c->file, STDERR_FILENO), STDERR_FILENO);
}

/* $JOURNAL_STREAM naming the capture file, or its inode plus ino_delta. */
static void set_journal_stream(const struct capture *c, int ino_delta)
{
	struct stat st;
	assert_int_equal(fstat(c->file, &st), 0);
	char value[64];
	snprintf(value, sizeof(value), "%llu:%llu",
		 (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + (unsigned long long)ino_delta);
	setenv("JOURNAL_STREAM", value, 1);
}

/* Restores stderr and returns what was logged (caller frees). */
static char *capture_end(struct capture *c)
{
	assert_int_equal(dup2(c->saved_stderr, STDERR_FILENO), STDERR_FILENO);
	close(c->saved_stderr);
	off_t size = lseek(c->file, 0, SEEK_END);
	assert_true(size >= 0);
	char *text = calloc(1, (size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(pread(c->file, text, (size_t)size, 0), size);
	close(c->file);
	unlink(c->path);
	unsetenv("JOURNAL_STREAM");
	return text;
}

static void log_one_of_each(void)
{
	rs_err("disk %d failed", 3);
	rs_warn("slow %s", "peer");
	rs_info("serving");
	rs_verbose("detail");
}

static void expect_logged(int ino_delta, bool journal_stream_set,
			  enum rs_log_level level, const char *want)
{
	struct capture c;
	capture_start(&c);
	if (journal_stream_set)
		set_journal_stream(&c, ino_delta);
	rs_log_init("prog", level);
	log_one_of_each();
	char *got = capture_end(&c);
	assert_string_equal(got, want);
	free(got);
}

static void plain_without_journal(void **state)
{
	(void)state;
	expect_logged(0, false, RS_LOG_VERBOSE,
		      "prog: disk 3 failed\nprog: slow peer\nprog: serving\n"
		      "prog: detail\n");
}

static void priorities_on_the_journal_stream(void **state)
{
	(void)state;
	expect_logged(0, true, RS_LOG_VERBOSE,
		      "<3>prog: disk 3 failed\n<4>prog: slow peer\n"
		      "<6>prog: serving\n<7>prog: detail\n");
}

/* An inherited $JOURNAL_STREAM while stderr is something else. */
static void plain_when_the_stream_is_another_file(void **state)
{
	(void)state;
	expect_logged(1, true, RS_LOG_VERBOSE,
		      "prog: disk 3 failed\nprog: slow peer\nprog: serving\n"
		      "prog: detail\n");
}

/* Warnings go with notices: -q leaves errors only. */
static void levels_filter_warnings_like_notices(void **state)
{
	(void)state;
	expect_logged(0, true, RS_LOG_QUIET, "<3>prog: disk 3 failed\n");
	expect_logged(0, true, RS_LOG_NORMAL,
		      "<3>prog: disk 3 failed\n<4>prog: slow peer\n"
		      "<6>prog: serving\n");
	expect_logged(0, false, RS_LOG_NORMAL,
		      "prog: disk 3 failed\nprog: slow peer\nprog: serving\n");
}

static void long_message_is_cut_to_one_line(void **state)
{
	(void)state;
	char big[4096];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	struct capture c;
	capture_start(&c);
	set_journal_stream(&c, 0);
	rs_log_init("prog", RS_LOG_NORMAL);
	rs_err("%s", big);
	char *got = capture_end(&c);
	size_t len = strlen(got);
	assert_int_equal(len, 1023);
	assert_memory_equal(got, "<3>prog: xxx", 12);
	assert_ptr_equal(strchr(got, '\n'), got + len - 1);
	free(got);
}

/* %m reads errno, and a caller may log before reporting errno itself. */
static void logging_keeps_errno(void **state)
{
	(void)state;
	struct capture c;
	capture_start(&c);
	rs_log_init("prog", RS_LOG_NORMAL);
	errno = ENOSPC;
	rs_err("full: %m");
	int after = errno;
	char *got = capture_end(&c);
	assert_string_equal(got, "prog: full: No space left on device\n");
	assert_int_equal(after, ENOSPC);
	free(got);
}

/* A --progress line without its newline: the next message ends it first,
 * once; the line after it starts plainly. */
static void a_message_ends_an_open_status_line(void **state)
{
	(void)state;
	struct capture c;
	capture_start(&c);
	rs_log_init("prog", RS_LOG_NORMAL);
	rs_log_line_open(true);
	rs_err("lost");
	rs_info("back");
	rs_log_line_open(true);
	rs_log_line_open(false);
	rs_info("done");
	char *got = capture_end(&c);
	assert_string_equal(got, "\nprog: lost\nprog: back\nprog: done\n");
	free(got);
}

static void journal_stream_values(void **state)
{
	(void)state;
	char path[] = "/tmp/rs-log-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	char exact[64], spaced[80], plus_ino[80];
	snprintf(exact, sizeof(exact), "%llu:%llu",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	snprintf(spaced, sizeof(spaced), " %s", exact);
	snprintf(plus_ino, sizeof(plus_ino), "%llu:+%llu",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	assert_true(rs_log_is_journal_stream(exact, fd));
	const char *bad[] = {
	    spaced, plus_ino, "",     ":",
	    "1",    "1:",     ":1",   "a:b",
	    "1:2x", "1:2:3",  "-1:2", "99999999999999999999999:1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(rs_log_is_journal_stream(bad[i], fd));
	assert_false(rs_log_is_journal_stream(NULL, fd));
	close(fd);
	assert_false(rs_log_is_journal_stream(exact, fd)); /* closed */
}

enum { THREADS = 4, LINES = 2000 };

static void *log_lines(void *arg)
{
	int id = (int)(intptr_t)arg;
	for (int i = 0; i < LINES; i++)
		rs_warn("thread %d line %04d %s", id, i,
			"padding-padding-padding-padding-padding-padding");
	return NULL;
}

/* Lines of concurrent threads stay whole: each one matches the format,
 * and every thread's lines are all there. */
static void threads_never_interleave(void **state)
{
	(void)state;
	struct capture c;
	capture_start(&c);
	set_journal_stream(&c, 0);
	rs_log_init("prog", RS_LOG_NORMAL);
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(
		    pthread_create(&t[i], NULL, log_lines, (void *)(intptr_t)i),
		    0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	char *got = capture_end(&c);
	int count[THREADS] = {0};
	int lines = 0;
	for (char *line = strtok(got, "\n"); line; line = strtok(NULL, "\n")) {
		int id, n, end = 0;
		assert_int_equal(sscanf(line,
					"<4>prog: thread %d line %4d "
					"padding-padding-padding-padding-"
					"padding-padding%n",
					&id, &n, &end),
				 2);
		assert_int_equal((size_t)end, strlen(line));
		assert_true(id >= 0 && id < THREADS);
		count[id]++;
		lines++;
	}
	assert_int_equal(lines, THREADS * LINES);
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(count[i], LINES);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(plain_without_journal),
	    cmocka_unit_test(priorities_on_the_journal_stream),
	    cmocka_unit_test(plain_when_the_stream_is_another_file),
	    cmocka_unit_test(levels_filter_warnings_like_notices),
	    cmocka_unit_test(long_message_is_cut_to_one_line),
	    cmocka_unit_test(logging_keeps_errno),
	    cmocka_unit_test(a_message_ends_an_open_status_line),
	    cmocka_unit_test(journal_stream_values),
	    cmocka_unit_test(threads_never_interleave),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
