/* rpma-send -f's follower (input/follow.h) while nothing is read: the
 * sender's window full because the receiver is slow or away, or the
 * sender busy elsewhere. Real files in a scratch directory, rotated as
 * logrotate does (numbered names, create, copytruncate with its copy
 * beside the file, in a directory inside it, compressed at once or named
 * with `extension`), while the follower only notices (follower_notice) or
 * does nothing at all; then everything is read and the lines checked:
 * every line the files held, once, in order. And a directory that does
 * not exist yet, events lost (the inotify queue overflowing), polling, a
 * writer without O_APPEND, a rewrite of a file's last bytes, a file
 * removed and never created again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/log.h"
#include "input/follow.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GRACE_MS 200	  /* rotate_wait in these tests */
#define LINE_LEN 12	  /* "line 000001\n" */
#define GOT_MAX (1 << 20) /* bytes read in one test, at most */
#define COPY_LEN 1024	  /* a copy's path */

struct fixture {
	char dir[64];
	char path[256]; /* the followed name: DIR/app.log */
	struct follower *f;
	char *got;
	size_t got_len;
	int writer;    /* the application's descriptor on its log */
	int line;      /* the last line it wrote */
	int rotations; /* made so far */
};

static int setup(void **state)
{
	rs_log_init("test",
		    getenv("TEST_VERBOSE") ? RS_LOG_VERBOSE : RS_LOG_QUIET);
	struct fixture *x = calloc(1, sizeof(*x));
	strcpy(x->dir, "/tmp/rs-test-follow-pressure-XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	snprintf(x->path, sizeof(x->path), "%s/app.log", x->dir);
	x->got = malloc(GOT_MAX);
	x->writer = -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	follower_free(x->f);
	if (x->writer >= 0)
		close(x->writer);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
	assert_int_equal(system(cmd), 0);
	unsetenv("RPMA_SEND_FOLLOW_POLL");
	free(x->got);
	free(x);
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&t, NULL);
}

static void at(struct fixture *x, char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", x->dir, name);
}

/* ---- the application ---- */

/* Opens the log as the application does: O_APPEND unless told. */
static void app_open(struct fixture *x, bool append)
{
	if (x->writer >= 0)
		close(x->writer);
	x->writer =
	    open(x->path, O_WRONLY | O_CREAT | (append ? O_APPEND : 0), 0644);
	assert_true(x->writer >= 0);
}

/* The application writes its next n numbered lines. */
static void app_write(struct fixture *x, int n)
{
	for (int i = 0; i < n; i++) {
		char text[32];
		snprintf(text, sizeof(text), "line %06d\n", ++x->line);
		assert_int_equal(write(x->writer, text, LINE_LEN), LINE_LEN);
	}
}

/* ---- the follower ---- */

static void follow(struct fixture *x)
{
	x->f = follower_new(x->path, GRACE_MS);
	assert_non_null(x->f);
}

/* Reads until the follower has nothing now. */
static void drain(struct fixture *x)
{
	ssize_t n;
	while ((n = follower_read(x->f, x->got + x->got_len,
				  GOT_MAX - 1 - x->got_len)) > 0)
		x->got_len += (size_t)n;
	assert_int_equal(n, 0);
	x->got[x->got_len] = '\0';
}

/* Everything the files hold, as a sender that stops reads it. */
static void drain_all(struct fixture *x)
{
	follower_stop_waiting(x->f);
	drain(x);
}

/* The lines read are exactly first..last, in order. */
static void assert_lines(const struct fixture *x, int first, int last)
{
	char want[32];
	size_t n = (size_t)(last - first + 1);
	for (size_t i = 0; i < n && i * LINE_LEN < x->got_len; i++) {
		snprintf(want, sizeof(want), "line %06d\n", first + (int)i);
		if (memcmp(x->got + i * LINE_LEN, want, LINE_LEN) != 0)
			fail_msg("byte %zu: \"%.*s\", not \"%.*s\"",
				 i * LINE_LEN, LINE_LEN - 1,
				 x->got + i * LINE_LEN, LINE_LEN - 1, want);
	}
	assert_int_equal(x->got_len, n * LINE_LEN);
}

/* ---- rotations as logrotate makes them ---- */

/* Numbered, `create`: app.log.K to app.log.K+1 (the one beyond `keep`
 * removed), app.log to app.log.1, a new app.log. */
static void rotate_create(struct fixture *x, int keep)
{
	char from[300], to[300];
	snprintf(from, sizeof(from), "%s.%d", x->path, keep);
	unlink(from);
	for (int k = keep - 1; k >= 1; k--) {
		snprintf(from, sizeof(from), "%s.%d", x->path, k);
		snprintf(to, sizeof(to), "%s.%d", x->path, k + 1);
		assert_true(rename(from, to) == 0 || errno == ENOENT);
	}
	snprintf(to, sizeof(to), "%s.1", x->path);
	assert_int_equal(rename(x->path, to), 0);
	int fd = open(x->path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	x->rotations++;
}

/* copytruncate: the copy made at copy_path (the older copies shifted
 * first when numbered), then the file truncated. */
static void copy_then_truncate(struct fixture *x, const char *copy_path)
{
	char cmd[3 * COPY_LEN];
	snprintf(cmd, sizeof(cmd), "cp %s %s", x->path, copy_path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(truncate(x->path, 0), 0);
	x->rotations++;
}

/* The application writes, the file is rotated `create` and written on
 * before and after the application reopens, the follower only notices:
 * rounds times. */
static void rotations_unread(struct fixture *x, int rounds, bool notice)
{
	for (int r = 0; r < rounds; r++) {
		app_write(x, 3);
		rotate_create(x, 20);
		if (notice)
			follower_notice(x->f);
		app_write(x, 2); /* into the renamed file: not reopened yet */
		app_open(x, true);
		app_write(x, 1);
		if (notice)
			follower_notice(x->f);
	}
}

/* More rotations than the 8 files the follower once held, while nothing
 * is read: the follower notices each as it comes (the sender's window
 * full); then every line, once, in order. */
static void rotations_while_nothing_is_read(void **state)
{
	struct fixture *x = *state;
	app_open(x, true);
	app_write(x, 2);
	follow(x);
	drain(x);
	rotations_unread(x, 30, true); /* the oldest ones removed too */
	drain_all(x);
	assert_lines(x, 1, x->line);
}

/* The same, the follower not even noticing (the sender busy
 * reconnecting): the inotify queue keeps the order and the names. */
static void rotations_unnoticed_keep_their_order(void **state)
{
	struct fixture *x = *state;
	app_open(x, true);
	app_write(x, 2);
	follow(x);
	drain(x);
	rotations_unread(x, 12, false);
	drain_all(x);
	assert_lines(x, 1, x->line);
}

static int open_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 4096; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

/* A limit on open files stops reading at a file that cannot be opened
 * yet; once the files before it are done it is opened and read: nothing
 * skipped. */
static void a_limit_on_open_files_skips_nothing(void **state)
{
	struct fixture *x = *state;
	app_open(x, true);
	app_write(x, 2);
	follow(x);
	drain(x);
	rotations_unread(x, 10, false);
	struct rlimit was, low;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	low = was;
	low.rlim_cur = (rlim_t)open_fds() + 3; /* fewer than the files */
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	drain_all(x);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
	assert_lines(x, 1, x->line);
}

/* A file that held the name and was removed before the follower could
 * open it is lost: the rest still comes, in order. */
static void a_file_removed_before_it_was_opened_is_skipped(void **state)
{
	struct fixture *x = *state;
	char one[300];
	at(x, one, sizeof(one), "app.log.1");
	app_open(x, true);
	app_write(x, 2); /* 1-2 */
	follow(x);
	drain(x);
	rotate_create(x, 20);
	app_open(x, true);
	app_write(x, 2);     /* 3-4: the file the follower never sees */
	rotate_create(x, 2); /* 3-4's file renamed app.log.1 */
	unlink(one);	     /* and removed */
	app_open(x, true);
	app_write(x, 2); /* 5-6 */
	drain_all(x);
	assert_memory_equal(x->got,
			    "line 000001\nline 000002\n"
			    "line 000005\nline 000006\n",
			    4 * LINE_LEN);
	assert_int_equal(x->got_len, 4 * LINE_LEN);
}

/* 20 rotations with nobody reading and two files' names taken away
 * meanwhile (logrotate's rotate 2: the older ones removed, held open). */
static void removed_files_held_open_are_read(void **state)
{
	struct fixture *x = *state;
	app_open(x, true);
	app_write(x, 1);
	follow(x);
	for (int r = 0; r < 20; r++) {
		rotate_create(x, 2);
		follower_notice(x->f);
		app_open(x, true);
		app_write(x, 3);
	}
	drain_all(x);
	assert_lines(x, 1, x->line);
}

/* Whether this process holds path open (the follower's thread did). */
static bool held_open(const char *path)
{
	char fd_path[64], link[512];
	for (int fd = 0; fd < 1024; fd++) {
		snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(fd_path, link, sizeof(link) - 1);
		if (n > 0 && (link[n] = '\0', strcmp(link, path) == 0))
			return true;
	}
	return false;
}

/* With its thread the follower opens each file as it comes while nobody
 * reads or notices (the sender waiting for a receiver): a file renamed
 * and removed at once (compress without delaycompress) is still read.
 * The test waits until the file is held, never a set time. */
static void its_own_thread_holds_files_as_they_come(void **state)
{
	struct fixture *x = *state;
	char one[300];
	at(x, one, sizeof(one), "app.log.1");
	app_open(x, true);
	app_write(x, 2);
	follow(x);
	assert_true(follower_watch_in_background(x->f));
	for (int r = 0; r < 10; r++) {
		app_write(x, 3);
		rotate_create(x, 20);
		app_write(x, 2); /* into the renamed file */
		app_open(x, true);
		app_write(x, 1);
		for (int wait = 0; wait < 500 && !held_open(one); wait++)
			sleep_ms(10);
		assert_true(held_open(one));
		assert_int_equal(unlink(one), 0); /* compressed at once */
	}
	drain_all(x);
	assert_lines(x, 1, x->line);
}

/* ---- copytruncate ---- */

/* Five copytruncate rotations while nothing is read, the copies named
 * by name_of(k): each truncation's bytes come from its copy, in order. */
static void copytruncate_unread(struct fixture *x,
				void (*name_of)(struct fixture *, int, char *))
{
	app_open(x, true);
	app_write(x, 2);
	follow(x);
	drain(x);
	for (int r = 1; r <= 5; r++) {
		char copy[COPY_LEN];
		app_write(x, 4);
		follower_notice(x->f);
		app_write(x, 1); /* not seen before the copy: in it */
		name_of(x, r, copy);
		copy_then_truncate(x, copy);
		follower_notice(x->f);
		app_write(x, 1);
	}
	drain_all(x);
	assert_lines(x, 1, x->line);
}

static void numbered(struct fixture *x, int r, char *copy)
{
	char from[300], to[300];
	for (int k = r - 1; k >= 1; k--) {
		snprintf(from, sizeof(from), "%s.%d", x->path, k);
		snprintf(to, sizeof(to), "%s.%d", x->path, k + 1);
		assert_int_equal(rename(from, to), 0);
	}
	snprintf(copy, COPY_LEN, "%s.1", x->path);
}

static void dated(struct fixture *x, int r, char *copy)
{
	snprintf(copy, COPY_LEN, "%s-20261201-%d", x->path, r);
}

static void in_olddir(struct fixture *x, int r, char *copy)
{
	char old[300];
	at(x, old, sizeof(old), "old");
	mkdir(old, 0755);
	snprintf(copy, COPY_LEN, "%s/app.log.%d", old, r);
}

static void with_extension(struct fixture *x, int r, char *copy)
{
	snprintf(copy, COPY_LEN, "%s/app.%d.log", x->dir, r);
}

static void copytruncate_numbered_while_unread(void **state)
{
	copytruncate_unread(*state, numbered);
}

static void copytruncate_dateext_while_unread(void **state)
{
	copytruncate_unread(*state, dated);
}

static void copytruncate_olddir_while_unread(void **state)
{
	copytruncate_unread(*state, in_olddir);
}

static void copytruncate_extension_while_unread(void **state)
{
	copytruncate_unread(*state, with_extension);
}

/* Looked at between logrotate's copy and its truncation: the line written
 * then is in no file (copytruncate's own loss); the copy, shorter than
 * what was seen, is still found, and nothing else is missing. */
static void copytruncate_seen_between_copy_and_truncate(void **state)
{
	struct fixture *x = *state;
	char copy[COPY_LEN], cmd[3 * COPY_LEN];
	at(x, copy, sizeof(copy), "app.log.1");
	app_open(x, true);
	app_write(x, 2);
	follow(x);
	drain(x);
	app_write(x, 3); /* 3-5, in the copy */
	snprintf(cmd, sizeof(cmd), "cp %s %s", x->path, copy);
	assert_int_equal(system(cmd), 0);
	app_write(x, 1); /* 6: in no file */
	follower_notice(x->f);
	assert_int_equal(truncate(x->path, 0), 0);
	app_write(x, 2); /* 7-8 */
	drain_all(x);
	assert_memory_equal(x->got,
			    "line 000001\nline 000002\nline 000003\n"
			    "line 000004\nline 000005\n"
			    "line 000007\nline 000008\n",
			    7 * LINE_LEN);
	assert_int_equal(x->got_len, 7 * LINE_LEN);
}

/* compress without delaycompress: the copy is compressed and removed
 * right after the truncation; the follower held it from its creation. */
static void copytruncate_compressed_at_once(void **state)
{
	struct fixture *x = *state;
	char copy[COPY_LEN], cmd[3 * COPY_LEN];
	at(x, copy, sizeof(copy), "app.log.1");
	app_open(x, true);
	app_write(x, 3);
	follow(x);
	drain(x);
	app_write(x, 4);
	int fd = open(copy, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	follower_notice(x->f); /* the copy's creation: it is opened */
	snprintf(cmd, sizeof(cmd), "cat %s >%s", x->path, copy);
	assert_int_equal(system(cmd), 0);
	close(fd);
	assert_int_equal(truncate(x->path, 0), 0);
	snprintf(cmd, sizeof(cmd), "gzip %s", copy); /* removes it */
	assert_int_equal(system(cmd), 0);
	app_write(x, 2);
	drain_all(x);
	assert_lines(x, 1, x->line);
}

/* A writer without O_APPEND goes on at its old offset after the
 * truncation: the file starts with a hole (NUL bytes), which is not
 * shipped; the copy's bytes come first. */
static void a_writer_without_append_after_copytruncate(void **state)
{
	struct fixture *x = *state;
	char copy[COPY_LEN];
	at(x, copy, sizeof(copy), "app.log.1");
	app_open(x, false);
	app_write(x, 400); /* more than a page: a hole of whole pages too */
	follow(x);
	assert_int_equal(follower_read(x->f, x->got, 100), 100);
	x->got_len = 100;
	copy_then_truncate(x, copy);
	app_write(x, 3); /* at offset 4800 */
	drain_all(x);
	assert_lines(x, 1, x->line);
}

/* A rewrite of bytes past the first 4 KiB read is no truncation: what was
 * read stays as it was read, reading goes on; a change of the first bytes
 * is one: the file is read again from its first byte. */
static void rewrites_past_and_within_the_first_bytes(void **state)
{
	struct fixture *x = *state;
	app_open(x, false);
	app_write(x, 500);
	follow(x);
	drain(x);
	assert_int_equal(pwrite(x->writer, "LINE", 4, 499 * LINE_LEN), 4);
	app_write(x, 1); /* line 501 */
	drain(x);
	assert_lines(x, 1, 501);
	assert_int_equal(pwrite(x->writer, "LINE", 4, 0), 4);
	drain(x);
	assert_int_equal(x->got_len, 501 * LINE_LEN + 501 * LINE_LEN);
	assert_memory_equal(x->got + 501 * LINE_LEN, "LINE 000001\n", LINE_LEN);
}

/* ---- names that come late, events lost, polling ---- */

/* -f on a path whose directory (and its parent) do not exist yet: they
 * are watched for, and the file is followed, rotations too, once they
 * appear. */
static void a_directory_that_appears_later(void **state)
{
	struct fixture *x = *state;
	char parent[300], dir[200];
	at(x, parent, sizeof(parent), "later");
	at(x, dir, sizeof(dir), "later/logs");
	snprintf(x->path, sizeof(x->path), "%s/app.log", dir);
	follow(x);
	drain(x);
	assert_int_equal(mkdir(parent, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	struct pollfd p = {.fd = follower_wake_fd(x->f), .events = POLLIN};
	assert_true(p.fd >= 0);
	assert_int_equal(poll(&p, 1, 1000), 1); /* woken, not polled */
	app_open(x, true);
	app_write(x, 2);
	drain(x);
	assert_lines(x, 1, 2);
	/* Watched now: a rotation while unread is followed by its events. */
	rotate_create(x, 20);
	follower_notice(x->f);
	app_write(x, 1); /* into the renamed file */
	rotate_create(x, 20);
	app_open(x, true);
	app_write(x, 1);
	drain_all(x);
	assert_lines(x, 1, 4);
}

/* The inotify queue overflows while nobody reads it: the files that held
 * the name meanwhile are found by their times, in order. */
static void events_lost_are_made_up_by_times(void **state)
{
	struct fixture *x = *state;
	char name[300];
	app_open(x, true);
	app_write(x, 2);
	follow(x);
	drain(x);
	sleep_ms(20); /* the file system's clock moves on */
	FILE *max = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	int queue = 16384;
	if (max) {
		assert_int_equal(fscanf(max, "%d", &queue), 1);
		fclose(max);
	}
	if (queue > 1 << 18)
		skip(); /* too many events to make here */
	for (int i = 0; i <= queue / 2 + 1; i++) {
		at(x, name, sizeof(name), "noise");
		int fd = open(name, O_WRONLY | O_CREAT, 0644);
		close(fd);
		unlink(name);
	}
	rotate_create(x, 20);
	app_write(x, 1);
	app_open(x, true);
	app_write(x, 2);
	sleep_ms(20);
	rotate_create(x, 20);
	app_open(x, true);
	app_write(x, 2);
	drain_all(x);
	assert_lines(x, 1, x->line);
}

/* Without inotify the follower polls: two rotations between two looks,
 * the file in between found by its time. */
static void polling_finds_a_file_between_two_looks(void **state)
{
	struct fixture *x = *state;
	setenv("RPMA_SEND_FOLLOW_POLL", "1", 1);
	app_open(x, true);
	app_write(x, 2);
	follow(x);
	drain(x);
	assert_int_equal(follower_wake_fd(x->f), -1);
	sleep_ms(20);
	rotate_create(x, 20);
	app_open(x, true);
	app_write(x, 2);
	sleep_ms(20);
	rotate_create(x, 20);
	app_open(x, true);
	app_write(x, 2);
	drain_all(x);
	assert_lines(x, 1, x->line);
}

/* A file removed and never created again is read on as the application
 * writes to it; nothing else comes. */
static void a_removed_file_never_created_again_is_read_on(void **state)
{
	struct fixture *x = *state;
	app_open(x, true);
	app_write(x, 2);
	follow(x);
	drain(x);
	assert_int_equal(unlink(x->path), 0);
	app_write(x, 2);
	drain(x);
	sleep_ms(GRACE_MS + 50);
	app_write(x, 2);
	drain(x);
	assert_lines(x, 1, 6);
}

#define CASE(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    CASE(rotations_while_nothing_is_read),
	    CASE(rotations_unnoticed_keep_their_order),
	    CASE(a_limit_on_open_files_skips_nothing),
	    CASE(a_file_removed_before_it_was_opened_is_skipped),
	    CASE(removed_files_held_open_are_read),
	    CASE(its_own_thread_holds_files_as_they_come),
	    CASE(copytruncate_numbered_while_unread),
	    CASE(copytruncate_dateext_while_unread),
	    CASE(copytruncate_olddir_while_unread),
	    CASE(copytruncate_extension_while_unread),
	    CASE(copytruncate_compressed_at_once),
	    CASE(copytruncate_seen_between_copy_and_truncate),
	    CASE(a_writer_without_append_after_copytruncate),
	    CASE(rewrites_past_and_within_the_first_bytes),
	    CASE(a_directory_that_appears_later),
	    CASE(events_lost_are_made_up_by_times),
	    CASE(polling_finds_a_file_between_two_looks),
	    CASE(a_removed_file_never_created_again_is_read_on),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
