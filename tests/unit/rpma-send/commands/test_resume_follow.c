/* --resume of a -f follow (commands/resume_follow.c): where the log's
 * last bytes end among FILE and the copies a log rotation left beside it
 * (app.log, app.log.1, ...), confirmed by the receiver's hashes of the
 * log's bytes before them: the stream goes on there, then through the
 * newer copies, oldest first, then FILE; a newer copy compressed, or no
 * file that holds them, stops the resume with a word saying so.
 *
 * The receiver is a fake holding a log in memory: the test links with
 * --wrap for verify_log_extent, fetch_run and verify_run, which answer
 * from it as the receiver would (its extent, its bytes, and whether its
 * bytes in a range equal a local file's first ones). The files are real,
 * in a directory of their own; stderr is a file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "commands/resume_follow.h"
#include "error.h"
#include "fetch/fetcher.h"
#include "verify/verifier.h"

#include "../../stderr_capture.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The log's lines, all different: "app line 00042\n", 15 bytes each. */
#define LINE 15u
#define LINES 6000u
#define LOG_MAX (4u << 20)
#define LOG_FIRST (1u << 20) /* positions before it pruned */

static char text[LINES * LINE + 1];

/* Lines [a, b) of the text. */
#define AT(a) (text + (size_t)(a)*LINE)
#define LEN(a, b) ((size_t)((b) - (a)) * LINE)

/* ---- the fake receiver ---- */

static struct {
	uint8_t bytes[LOG_MAX];
	uint64_t len;  /* held now */
	uint64_t grow; /* bytes[len, len + grow) arrive once extent is told */
	int rc;	       /* its extent's answer */
	unsigned verifies;
} rlog;

static void log_append(const void *p, size_t len)
{
	assert_true(rlog.len + len <= LOG_MAX);
	memcpy(rlog.bytes + rlog.len, p, len);
	rlog.len += len;
}

int __wrap_verify_log_extent(const struct verify_config *cfg, uint64_t *first,
			     uint64_t *end);
int __wrap_verify_log_extent(const struct verify_config *cfg, uint64_t *first,
			     uint64_t *end)
{
	(void)cfg;
	*first = LOG_FIRST;
	*end = LOG_FIRST + rlog.len;
	rlog.len += rlog.grow; /* the writer goes on meanwhile */
	rlog.grow = 0;
	return rlog.rc;
}

/* Its bytes from start.from to its end, a 1000 at a time. */
int __wrap_fetch_run(const struct fetch_config *cfg,
		     const struct fetch_sink *sink, struct fetch_result *r);
int __wrap_fetch_run(const struct fetch_config *cfg,
		     const struct fetch_sink *sink, struct fetch_result *r)
{
	uint64_t at = cfg->start.from, end = LOG_FIRST + rlog.len;
	assert_in_range(at, LOG_FIRST, end);
	while (at < end) {
		uint64_t n = end - at < 1000 ? end - at : 1000;
		assert_int_equal(
		    sink->write(sink->ctx, rlog.bytes + (at - LOG_FIRST), n),
		    0);
		at += n;
	}
	r->at = end;
	return 0;
}

/* The log's bytes from offset (from its first), length of them, against
 * the file's first local_max: the outcome the receiver's hashes give. */
int __wrap_verify_run(const struct verify_config *cfg, int fd, const char *name,
		      struct verify_result *r);
int __wrap_verify_run(const struct verify_config *cfg, int fd, const char *name,
		      struct verify_result *r)
{
	(void)name;
	static uint8_t local[LOG_MAX];
	assert_int_equal(cfg->method, VERIFY_HASH);
	assert_false(cfg->whole_log);
	rlog.verifies++;
	uint64_t remote = cfg->offset < rlog.len ? rlog.len - cfg->offset : 0;
	remote = remote < cfg->length ? remote : cfg->length;
	assert_true(cfg->local_max <= LOG_MAX);
	ssize_t got = read(fd, local, cfg->local_max);
	assert_true(got >= 0);
	const uint8_t *log = rlog.bytes + cfg->offset;
	uint64_t n = remote < (uint64_t)got ? remote : (uint64_t)got, same = 0;
	while (same < n && log[same] == local[same])
		same++;
	*r = (struct verify_result){
	    .outcome = same < n			? VERIFY_DIFFERENT
		       : remote < (uint64_t)got ? VERIFY_REMOTE_SHORTER
		       : (uint64_t)got < remote ? VERIFY_REMOTE_LONGER
						: VERIFY_SAME,
	    .first_difference = same,
	    .compared = same,
	    .local_length = (uint64_t)got,
	    .remote_length = remote,
	};
	return 0;
}

/* ---- the files a log rotation leaves ---- */

static char dir[64];

/* Writes dir/name with lines [a, b), then lines [c, d) (c == d: none),
 * last modified hours_ago. */
static void file_of(const char *name, unsigned a, unsigned b, unsigned c,
		    unsigned d, int hours_ago)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, AT(a), LEN(a, b)), (ssize_t)LEN(a, b));
	assert_int_equal(write(fd, AT(c), LEN(c, d)), (ssize_t)LEN(c, d));
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= hours_ago * 3600;
	t[1] = t[0];
	assert_int_equal(futimens(fd, t), 0);
	close(fd);
}

static const char *in_dir(const char *name)
{
	static char path[4][PATH_MAX];
	static unsigned next;
	char *p = path[next++ % 4];
	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static int setup(void **state)
{
	(void)state;
	for (unsigned i = 0; i < LINES; i++)
		snprintf(AT(i), LINE + 1, "app line %05u\n", i);
	memset(&rlog, 0, sizeof(rlog));
	snprintf(dir, sizeof(dir), "/tmp/test_resume_follow_XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlink(in_dir(e->d_name));
	if (d)
		closedir(d);
	return rmdir(dir);
}

/* ---- running it ---- */

static struct resume_follow_plan plan;
static const char *said = "";

/* resume_follow_find on dir/app.log: its code; what it said in said. */
static int find(void)
{
	struct ship_config cfg = {0};
	stderr_capture_start();
	int rc = resume_follow_find(&cfg, in_dir("app.log"), &plan);
	said = stderr_capture_end();
	return rc;
}

static void assert_said(const char *what)
{
	if (!strstr(said, what))
		fail_msg("said \"%s\", not \"%s\"", said, what);
}

/* ---- where the log's tail is ---- */

/* Not rotated since: FILE goes on after the log's 600 lines of it (the
 * log held the rotated copy's before them). */
static void the_file_goes_on_where_the_log_ends_in_it(void **state)
{
	(void)state;
	file_of("app.log.1", 0, 1000, 0, 0, 2);
	file_of("app.log", 1000, 2000, 0, 0, 0);
	log_append(AT(0), LEN(0, 1600));
	assert_int_equal(find(), 0);
	assert_int_equal(plan.npaths, 1);
	assert_string_equal(plan.paths[0], in_dir("app.log"));
	assert_int_equal(plan.from, LEN(1000, 1600));
	assert_int_equal(plan.held, LEN(0, 1600));
	assert_said("end at byte 9000 of");
}

/* Rotated once while the sender was down: the rest of app.log.1, then
 * FILE from its start. */
static void a_copy_rotated_while_down_is_shipped_first(void **state)
{
	(void)state;
	file_of("app.log.2", 0, 1000, 0, 0, 3);
	file_of("app.log.1", 1000, 2000, 0, 0, 2);
	file_of("app.log", 2000, 2100, 0, 0, 0);
	log_append(AT(0), LEN(0, 1600));
	assert_int_equal(find(), 0);
	assert_int_equal(plan.npaths, 2);
	assert_string_equal(plan.paths[0], in_dir("app.log.1"));
	assert_string_equal(plan.paths[1], in_dir("app.log"));
	assert_int_equal(plan.from, LEN(1000, 1600));
	assert_int_equal(plan.held, LEN(0, 1600));
	assert_said("rotated while the sender was down");
}

/* Rotated twice: the copy holding the tail, then the newer copy, then
 * FILE; the older copy, all shipped, is not read again. */
static void the_copies_after_it_follow_oldest_first(void **state)
{
	(void)state;
	file_of("app.log.3", 0, 1000, 0, 0, 4);
	file_of("app.log.2", 1000, 2000, 0, 0, 3);
	file_of("app.log.1", 2000, 3000, 0, 0, 2);
	file_of("app.log", 3000, 3050, 0, 0, 0);
	log_append(AT(0), LEN(0, 1600));
	assert_int_equal(find(), 0);
	assert_int_equal(plan.npaths, 3);
	assert_string_equal(plan.paths[0], in_dir("app.log.2"));
	assert_string_equal(plan.paths[1], in_dir("app.log.1"));
	assert_string_equal(plan.paths[2], in_dir("app.log"));
	assert_int_equal(plan.from, LEN(1000, 1600));
}

/* Rotated right after the sender shipped a few lines of the new FILE:
 * the tail ends the copy and begins FILE, which goes on after them; the
 * same a rotation further back. */
static void a_tail_across_a_rotation_goes_on_in_the_newer_file(void **state)
{
	(void)state;
	file_of("app.log.1", 0, 1000, 0, 0, 2);
	file_of("app.log", 1000, 1100, 0, 0, 0);
	log_append(AT(0), LEN(0, 1010));
	assert_int_equal(find(), 0);
	assert_int_equal(plan.npaths, 1);
	assert_string_equal(plan.paths[0], in_dir("app.log"));
	assert_int_equal(plan.from, LEN(1000, 1010));
	assert_said("the rest of them in");
	/* once more rotated since */
	file_of("app.log.2", 0, 1000, 0, 0, 3);
	file_of("app.log.1", 1000, 1100, 0, 0, 2);
	file_of("app.log", 1100, 1200, 0, 0, 0);
	assert_int_equal(find(), 0);
	assert_int_equal(plan.npaths, 2);
	assert_string_equal(plan.paths[0], in_dir("app.log.1"));
	assert_string_equal(plan.paths[1], in_dir("app.log"));
	assert_int_equal(plan.from, LEN(1000, 1010));
}

/* The tail's bytes twice in FILE (a block logged again): the place the
 * log's bytes before the tail confirm, not the newest. */
static void the_place_the_hashes_confirm_wins(void **state)
{
	(void)state;
	/* FILE: A B C B D; the log X A B, X a file deleted since */
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/app.log", dir);
	file_of("app.log", 0, 1300, 2000, 2100, 0);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fwrite(AT(1000), 1, LEN(1000, 1300), f);
	fwrite(AT(3000), 1, LEN(3000, 3010), f);
	fclose(f);
	log_append(AT(4000), LEN(4000, 4500));
	log_append(AT(0), LEN(0, 1300));
	assert_int_equal(find(), 0);
	assert_int_equal(plan.npaths, 1);
	assert_int_equal(plan.from, LEN(0, 1300));
	assert_int_equal(plan.held, LEN(4000, 4500) + LEN(0, 1300));
	assert_int_equal(rlog.verifies, 2); /* the newest, then the right one */
}

/* The log began inside FILE (its first bytes never shipped) and holds
 * less than a tail: all of it found is enough. */
static void a_short_log_that_began_inside_the_file(void **state)
{
	(void)state;
	file_of("app.log", 0, 1000, 0, 0, 0);
	log_append(AT(500), LEN(500, 600));
	assert_int_equal(find(), 0);
	assert_int_equal(plan.npaths, 1);
	assert_int_equal(plan.from, LEN(0, 600));
	assert_int_equal(plan.held, LEN(500, 600));
}

/* Lines written while the tail was read back: the newest tail counts. */
static void a_log_that_grew_meanwhile_goes_on_after_its_newest(void **state)
{
	(void)state;
	file_of("app.log", 0, 2000, 0, 0, 0);
	log_append(AT(0), LEN(0, 1800));
	rlog.len = LEN(0, 1600);
	rlog.grow = LEN(1600, 1800);
	assert_int_equal(find(), 0);
	assert_int_equal(plan.from, LEN(0, 1800));
	assert_int_equal(plan.held, LEN(0, 1800));
}

/* Nothing shipped yet: FILE from its start, nothing looked for. */
static void an_empty_log_starts_the_file_over(void **state)
{
	(void)state;
	file_of("app.log", 0, 10, 0, 0, 0);
	assert_int_equal(find(), 0);
	assert_int_equal(plan.npaths, 0);
	assert_int_equal(plan.from, 0);
	assert_int_equal(plan.held, 0);
	assert_int_equal(rlog.verifies, 0);
}

/* ---- where it stops ---- */

/* The copy after the one holding the tail was compressed while the
 * sender was down: its lines cannot be read, so nothing goes on. */
static void a_newer_copy_compressed_stops_the_resume(void **state)
{
	(void)state;
	file_of("app.log.2", 1000, 2000, 0, 0, 3);
	file_of("app.log.1.gz", 2000, 2010, 0, 0, 2);
	file_of("app.log", 3000, 3010, 0, 0, 0);
	log_append(AT(0), LEN(0, 1600));
	assert_int_equal(find(), RS_E_DIVERGED);
	assert_said("its rotated copy ");
	assert_said("/app.log.1.gz was compressed while the sender was down");
}

/* The tail only in a compressed copy, or in a file whose earlier lines
 * are not the log's: in no file, said with how much was looked for. */
static void a_tail_in_no_file_is_said(void **state)
{
	(void)state;
	file_of("app.log.1.gz", 0, 2000, 0, 0, 2);
	file_of("app.log", 2000, 2100, 0, 0, 0);
	log_append(AT(0), LEN(0, 1600));
	assert_int_equal(find(), RS_E_DIVERGED);
	assert_said("cannot resume ");
	assert_said("/app.log: the remote log's last 4096 bytes are in "
		    "neither it nor a rotated copy beside it");
	/* the same last 300 lines after 300 others than the log's */
	file_of("app.log", 5000, 5300, 1300, 2000, 0);
	assert_int_equal(find(), RS_E_DIVERGED);
	assert_said("are in neither it");
	assert_true(rlog.verifies >= 1);
}

/* A receiver that cannot be reached: its code, nothing looked for. */
static void an_unreachable_receiver_is_its_code(void **state)
{
	(void)state;
	file_of("app.log", 0, 10, 0, 0, 0);
	log_append(AT(0), LEN(0, 5));
	rlog.rc = RS_E_LOST;
	assert_int_equal(find(), RS_E_LOST);
	assert_int_equal(plan.npaths, 0);
	assert_int_equal(rlog.verifies, 0);
}

#define TEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    TEST(the_file_goes_on_where_the_log_ends_in_it),
	    TEST(a_copy_rotated_while_down_is_shipped_first),
	    TEST(the_copies_after_it_follow_oldest_first),
	    TEST(a_tail_across_a_rotation_goes_on_in_the_newer_file),
	    TEST(the_place_the_hashes_confirm_wins),
	    TEST(a_short_log_that_began_inside_the_file),
	    TEST(a_log_that_grew_meanwhile_goes_on_after_its_newest),
	    TEST(an_empty_log_starts_the_file_over),
	    TEST(a_newer_copy_compressed_stops_the_resume),
	    TEST(a_tail_in_no_file_is_said),
	    TEST(an_unreachable_receiver_is_its_code),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
