/* rpma-send -f's follower (input/follow.h) on real files in a scratch
 * directory: growth, rotation by rename with the old file read until quiet,
 * several rotations in order, a file that appears late, deleted and recreated,
 * a symlink put in its place, truncation in place with the unread tail taken
 * from the rotated copy, truncation noticed by content after the file grew
 * back, inotify waking the reader, and polling without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/log.h"
#include "input/follow.h"
#include "input/follow_internal.h"
#include "input/follow_track.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GRACE_MS 300 /* rotate_wait in these tests */

struct fixture {
	char dir[64];
	char path[128];	 /* the followed name: DIR/app.log */
	char path1[128]; /* DIR/app.log.1 */
	struct follower *f;
	char got[1 << 16];
	size_t got_len;
};

static int setup(void **state)
{
	rs_log_init("test",
		    getenv("TEST_VERBOSE") ? RS_LOG_VERBOSE : RS_LOG_QUIET);
	struct fixture *x = calloc(1, sizeof(*x));
	strcpy(x->dir, "/tmp/rs-test-follow-XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	snprintf(x->path, sizeof(x->path), "%s/app.log", x->dir);
	snprintf(x->path1, sizeof(x->path1), "%s/app.log.1", x->dir);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	follower_free(x->f);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
	assert_int_equal(system(cmd), 0);
	free(x);
	return 0;
}

static void append(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&t, NULL);
}

/* Reads until the follower has nothing now, up to cap bytes a read. */
static void drain_by(struct fixture *x, size_t cap)
{
	ssize_t n;
	while ((n = follower_read(x->f, x->got + x->got_len, cap)) > 0)
		x->got_len += (size_t)n;
	assert_int_equal(n, 0);
	x->got[x->got_len] = '\0';
}

static void drain(struct fixture *x)
{
	drain_by(x, sizeof(x->got) - 1 - x->got_len);
}

static void follow(struct fixture *x)
{
	x->f = follower_new(x->path, GRACE_MS);
	assert_non_null(x->f);
}

/* The follower has no loss to say (follow_losses.h). */
static void assert_nothing_lost(struct fixture *x)
{
	char lost[512];
	assert_int_equal(follower_losses(x->f, lost, sizeof(lost)), 0);
}

/* The grace period waited out, the first look that finds a rotated file
 * quiet made (a read), then the wait for the second (FOLLOW_CONFIRM_MS):
 * a rotated file quiet since is done at the next read. */
static void wait_quiet(struct fixture *x)
{
	sleep_ms(GRACE_MS + 100);
	drain(x);
	sleep_ms(FOLLOW_CONFIRM_MS + 50);
}

/* Reads with no descriptor to spare (the soft limit within the reserve):
 * no file can be opened meanwhile. */
static void drain_with_no_descriptor(struct fixture *x)
{
	struct rlimit was, none;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
	int probe = open("/dev/null", O_RDONLY);
	close(probe);
	none = was;
	none.rlim_cur = (rlim_t)probe + 1;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
	drain(x);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
}

/* What inotify queued is lost, as when its queue overflows. */
static void lose_events(struct fixture *x)
{
	char buf[4096];
	while (read(x->f->watch.fd, buf, sizeof(buf)) > 0)
		;
	struct follow_event lost = {.change = FOLLOW_UNKNOWN};
	follow_track_event(x->f, &lost);
}

static void reads_growth(void **state)
{
	struct fixture *x = *state;
	follow(x);
	drain(x); /* not there yet */
	assert_string_equal(x->got, "");
	append(x->path, "one\n");
	drain(x);
	append(x->path, "two\n");
	drain(x);
	assert_string_equal(x->got, "one\ntwo\n");
}

/* Renamed away and created again: what the application still writes to
 * the old file comes first; the new file once the old has been quiet. */
static void a_renamed_file_is_read_until_quiet(void **state)
{
	struct fixture *x = *state;
	append(x->path, "a1\n");
	follow(x);
	drain(x);
	assert_int_equal(rename(x->path, x->path1), 0);
	append(x->path, "b1\n");  /* logrotate's create, and a reopen */
	append(x->path1, "a2\n"); /* before the application reopened */
	drain(x);
	assert_string_equal(x->got, "a1\na2\n");
	wait_quiet(x);
	drain(x);
	assert_string_equal(x->got, "a1\na2\nb1\n");
	append(x->path, "b2\n");
	drain(x);
	assert_string_equal(x->got, "a1\na2\nb1\nb2\n");
}

/* a1 read from the file, which is renamed to path1 (the application still
 * writes to it), and b1 in a new one at the path: the rotation noticed,
 * the grace period runs from here. */
static void rotate_once(struct fixture *x)
{
	append(x->path, "a1\n");
	follow(x);
	drain(x);
	assert_int_equal(rename(x->path, x->path1), 0);
	append(x->path, "b1\n");
	drain(x);
}

/* The writer held up as long as the reader (a stalled machine, a starved
 * CPU: both wake together, the reader first): the rotated file looked
 * quiet for the wait, but a second look FOLLOW_CONFIRM_MS later finds what
 * the writer wrote meanwhile, read before the new file. */
static void
a_rotated_file_written_before_the_second_look_is_read_on(void **state)
{
	struct fixture *x = *state;
	rotate_once(x);
	sleep_ms(GRACE_MS + 100);
	drain(x);		  /* quiet for the wait: the first look */
	append(x->path1, "a2\n"); /* the writer, woken after the reader */
	drain(x);
	assert_string_equal(x->got, "a1\na2\n");
	wait_quiet(x);
	drain(x);
	assert_string_equal(x->got, "a1\na2\nb1\n");
	assert_nothing_lost(x);
}

/* Written to after it was left (its writer held up past the wait and the
 * second look): not read any more, but named at the end (exit 8), not
 * lost unsaid; a file left that grows no more is no loss. */
static void what_a_left_file_gets_later_is_named_a_loss(void **state)
{
	struct fixture *x = *state;
	rotate_once(x);
	wait_quiet(x);
	drain(x);
	assert_string_equal(x->got, "a1\nb1\n");
	append(x->path1, "late\n");
	append(x->path, "b2\n");
	drain(x);
	assert_string_equal(x->got, "a1\nb1\nb2\n");
	char lost[1024], want[1024];
	assert_int_equal(follower_losses(x->f, lost, sizeof(lost)), 1);
	snprintf(want, sizeof(want), "%s bytes 3 to 8", x->path1);
	assert_non_null(strstr(lost, want));
}

/* Rotated twice before the first old file was done: each file in turn. */
static void rotations_in_a_row_keep_their_order(void **state)
{
	struct fixture *x = *state;
	char path2[160];
	snprintf(path2, sizeof(path2), "%s/app.log.2", x->dir);
	append(x->path, "a\n");
	follow(x);
	drain(x);
	assert_int_equal(rename(x->path, x->path1), 0);
	append(x->path, "b\n");
	drain(x); /* sees the new file: it waits its turn */
	assert_int_equal(rename(x->path1, path2), 0);
	assert_int_equal(rename(x->path, x->path1), 0);
	append(x->path, "c\n");
	append(path2, "a+\n");
	append(x->path1, "b+\n");
	drain(x);
	wait_quiet(x);
	drain(x);
	wait_quiet(x);
	drain(x);
	assert_string_equal(x->got, "a\na+\nb\nb+\nc\n");
}

/* An application that opens its log for every line creates it between
 * logrotate's rename and its create; logrotate renames that file to
 * NAME-DATE.backup and creates its own. The file that held the name for a
 * moment, never seen at the path, is read in its turn, found by its new
 * name; a file renamed away after it was seen is not read twice. */
static void a_file_that_held_the_name_for_a_moment_is_read(void **state)
{
	struct fixture *x = *state;
	char backup[160], path2[160];
	snprintf(backup, sizeof(backup), "%s/app.log-2026112714.backup",
		 x->dir);
	snprintf(path2, sizeof(path2), "%s/app.log.2", x->dir);
	append(x->path, "a\n");
	follow(x);
	drain(x);
	assert_int_equal(rename(x->path, x->path1), 0);
	append(x->path, "b\n"); /* the application's line */
	assert_int_equal(rename(x->path, backup), 0);
	append(x->path, "c\n"); /* logrotate's file, written on */
	drain(x);
	assert_string_equal(x->got, "a\n");
	wait_quiet(x);
	drain(x);
	wait_quiet(x);
	drain(x);
	assert_string_equal(x->got, "a\nb\nc\n");
	/* The file being read renamed away: the same file, not a new one. */
	assert_int_equal(rename(x->path1, path2), 0);
	assert_int_equal(rename(x->path, x->path1), 0);
	append(x->path1, "c2\n");
	append(x->path, "d\n");
	drain(x);
	wait_quiet(x);
	drain(x);
	assert_string_equal(x->got, "a\nb\nc\nc2\nd\n");
}

/* nocreate: nothing at the path for a while, the old file read on; a
 * file deleted and created again; a symlink put in the file's place. */
static void late_deleted_and_symlinked_files_follow(void **state)
{
	struct fixture *x = *state;
	char other[160];
	snprintf(other, sizeof(other), "%s/elsewhere.log", x->dir);
	append(x->path, "1\n");
	follow(x);
	drain(x);
	assert_int_equal(rename(x->path, x->path1), 0);
	sleep_ms(GRACE_MS + 100);
	append(x->path1, "2\n"); /* no new file: the old one is read on */
	drain(x);
	/* Each change is noticed by a read (inotify's wake-up, or the
	 * poll); the grace period runs from then. */
	append(x->path, "3\n"); /* it appears */
	drain(x);
	wait_quiet(x);
	drain(x);
	assert_int_equal(unlink(x->path), 0);
	append(x->path, "4\n"); /* deleted and created again */
	drain(x);
	wait_quiet(x);
	drain(x);
	append(other, "5\n");
	assert_int_equal(unlink(x->path), 0);
	assert_int_equal(symlink(other, x->path), 0);
	drain(x);
	wait_quiet(x);
	drain(x);
	append(other, "6\n");
	drain(x);
	assert_string_equal(x->got, "1\n2\n3\n4\n5\n6\n");
}

/* copytruncate: the copy holds what was not read yet; it comes first,
 * then the file's new content from its first byte. */
static void a_truncated_file_ships_its_unread_tail_from_the_copy(void **state)
{
	struct fixture *x = *state;
	char text[10001];
	for (int i = 0; i < 10000; i++)
		text[i] = (char)('a' + i % 26);
	text[10000] = '\0';
	append(x->path, text);
	follow(x);
	ssize_t n = follower_read(x->f, x->got, 6000);
	assert_int_equal(n, 6000);
	x->got_len = 6000;
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "cp %s %s && truncate -s 0 %s", x->path,
		 x->path1, x->path);
	assert_int_equal(system(cmd), 0);
	append(x->path, "new\n");
	drain(x);
	assert_int_equal(x->got_len, 10004);
	assert_memory_equal(x->got, text, 10000);
	assert_string_equal(x->got + 10000, "new\n");
	assert_nothing_lost(x);
}

/* The file read in part, then copytruncate twice before the follower
 * looks again, the second copy made by `second` (a shell command on $F,
 * the file): the first copy holds the rest of what was being read, the
 * second all that was written between the truncations; both come before
 * the file's new content, nothing lost. */
static void copytruncated_twice(struct fixture *x, const char *second)
{
	append(x->path, "first generation, read in part\n");
	follow(x);
	assert_int_equal(follower_read(x->f, x->got, 6), 6);
	x->got_len = 6;
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "cp \"$F\" \"$F.1\" && truncate -s 0 \"$F\" && "
		 "printf 'second generation, never seen\\n' >>\"$F\" && "
		 "%s && truncate -s 0 \"$F\"",
		 second);
	setenv("F", x->path, 1);
	assert_int_equal(system(cmd), 0);
	unsetenv("F");
	append(x->path, "third\n");
	drain(x);
	assert_string_equal(x->got, "first generation, read in part\n"
				    "second generation, never seen\n"
				    "third\n");
	assert_nothing_lost(x);
}

/* Issue 70 item 3: the second copy beside the first. */
static void two_copytruncates_in_one_look_lose_nothing(void **state)
{
	copytruncated_twice(*state, "cp \"$F\" \"$F.2\"");
}

/* As logrotate numbers its copies (rotate N: .1 renamed .2 before the
 * next copy is made .1): by the time the follower reads the events, the
 * name of the first copy is the second's, so the copy that continues the
 * file is found by listing; the newer copy after it comes too (seen
 * missing in the VM test bed: the second generation lost). */
static void two_numbered_copytruncates_in_one_look_lose_nothing(void **state)
{
	copytruncated_twice(*state,
			    "mv \"$F.1\" \"$F.2\" && cp \"$F\" \"$F.1\"");
}

/* LOG.K renamed LOG.K+1 for every K, LOG renamed LOG.1, a new LOG: one
 * numbered rotation (logrotate's rotate N), after `line` was appended. */
static void rotate_numbered(struct fixture *x, int held, const char *line)
{
	char from[160], to[160];
	append(x->path, line);
	for (int k = held; k >= 1; k--) {
		snprintf(from, sizeof(from), "%s.%d", x->path, k);
		snprintf(to, sizeof(to), "%s.%d", x->path, k + 1);
		assert_int_equal(rename(from, to), 0);
	}
	assert_int_equal(rename(x->path, x->path1), 0);
	append(x->path, "");
}

/* 300 numbered rotations between two reads (the receiver away): their
 * renames overflow inotify's queue, so every copy is found by its time,
 * however many (only the newest 256 were: the rest skipped, unsaid). */
static void hundreds_of_rotations_in_one_look_are_all_read(void **state)
{
	struct fixture *x = *state;
	enum { ROTATIONS = 300 };
	static char want[ROTATIONS * 8 + 8];
	size_t len = 0;
	append(x->path, "");
	x->f = follower_new(x->path, 0); /* no wait for quiet: tail -F */
	assert_non_null(x->f);
	for (int r = 0; r < ROTATIONS; r++) {
		char line[16];
		snprintf(line, sizeof(line), "%06d\n", r);
		memcpy(want + len, line, 7);
		len += 7;
		rotate_numbered(x, r, line);
	}
	append(x->path, "last\n");
	memcpy(want + len, "last\n", 6);
	drain(x);
	assert_int_equal(x->got_len, len + 5);
	assert_memory_equal(x->got, want, len + 5);
	assert_nothing_lost(x);
}

/* Events lost (inotify's queue overflowed), then one that tells of a file
 * coming to the name: that file is read after the ones whose events were
 * lost, which are found by their times. It was opened at once, the name
 * then held a known file, and the follower took the loss as settled: the
 * files between were never read, and no line said so (the soak's 1000
 * rotations lost 300 to 600 of them). */
static void a_file_told_of_after_lost_events_is_read_after_them(void **state)
{
	struct fixture *x = *state;
	append(x->path, "A\n");
	x->f = follower_new(x->path, 0); /* no wait for quiet: tail -F */
	assert_non_null(x->f);
	drain(x);
	sleep_ms(20); /* B and C are modified after A was settled */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "mv %s %s.1 && printf 'B\\n' >%s && mv %s.1 %s.2 && "
		 "mv %s %s.1 && printf 'C\\n' >%s",
		 x->path, x->path, x->path, x->path, x->path, x->path, x->path,
		 x->path);
	assert_int_equal(system(cmd), 0);
	lose_events(x); /* then C's creation is told */
	struct follow_event came = {.change = FOLLOW_CAME, .created = true};
	snprintf(came.name, sizeof(came.name), "app.log");
	follow_track_event(x->f, &came);
	for (int i = 0; i < 3; i++)
		drain(x);
	assert_string_equal(x->got, "A\nB\nC\n");
	assert_nothing_lost(x);
}

/* Events lost, and the file at the name cannot be opened when it is
 * looked at (no descriptor); then the name changes hands again. That file
 * is read in its turn, found by its time: the look took it for settled,
 * and the next rotation's events left it out, unsaid. */
static void a_file_at_the_name_not_taken_is_found_later(void **state)
{
	struct fixture *x = *state;
	append(x->path, "A\n");
	x->f = follower_new(x->path, 0);
	assert_non_null(x->f);
	drain(x);
	sleep_ms(20); /* B and C are modified after A was settled */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "mv %s %s.1 && printf 'B\\n' >%s", x->path,
		 x->path, x->path);
	assert_int_equal(system(cmd), 0);
	lose_events(x);
	drain_with_no_descriptor(x);
	snprintf(cmd, sizeof(cmd),
		 "mv %s.1 %s.2 && mv %s %s.1 && printf 'C\\n' >%s", x->path,
		 x->path, x->path, x->path, x->path);
	assert_int_equal(system(cmd), 0);
	for (int i = 0; i < 3; i++)
		drain(x);
	assert_string_equal(x->got, "A\nB\nC\n");
}

/* Polling (no events), two rotations between looks, the middle file found
 * by its time while no descriptor is to be had (issue 70 item 5): nothing
 * is read past it, and once descriptors are back it is read in its turn,
 * before the file at the name. */
static void a_file_found_by_its_time_is_opened_when_it_can_be(void **state)
{
	struct fixture *x = *state;
	setenv("RPMA_SEND_FOLLOW_POLL", "1", 1);
	append(x->path, "A\n");
	follow(x);
	drain(x);
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "mv %s %s.2 && printf 'B\\n' >%s && mv %s %s.1 && "
		 "printf 'C\\n' >%s",
		 x->path, x->path, x->path, x->path, x->path, x->path);
	sleep_ms(20); /* B and C are modified after A was settled */
	assert_int_equal(system(cmd), 0);
	drain_with_no_descriptor(x);
	assert_string_equal(x->got, "A\n");
	for (int i = 0; i < 3; i++) { /* each file done when quiet */
		drain(x);
		wait_quiet(x);
	}
	drain(x);
	unsetenv("RPMA_SEND_FOLLOW_POLL");
	assert_string_equal(x->got, "A\nB\nC\n");
}

/* A file read to its end that comes back to the name (mv app.log x; ...;
 * mv x app.log) is read on from where it was finished, not again from its
 * first byte (issue 70 item 6); a new file that happens to reuse its
 * inode is read whole. */
static void a_finished_file_that_comes_back_is_not_read_twice(void **state)
{
	struct fixture *x = *state;
	char away[160];
	snprintf(away, sizeof(away), "%s/parked", x->dir);
	append(x->path, "one\n");
	follow(x);
	drain(x);
	assert_int_equal(rename(x->path, away), 0);
	append(x->path, "two\n");
	drain(x);
	wait_quiet(x);
	drain(x); /* the first is done: quiet, a newer one waits */
	assert_string_equal(x->got, "one\ntwo\n");
	assert_int_equal(rename(away, x->path), 0);
	append(x->path, "three\n");
	for (int i = 0; i < 2; i++) {
		drain(x);
		wait_quiet(x);
	}
	drain(x);
	assert_string_equal(x->got, "one\ntwo\nthree\n");
	assert_nothing_lost(x); /* held when it was left, read again: no loss */
}

/* The first truncation noticed only after logrotate's next copy was made
 * and before its truncate: that copy is the file as it is now, so it is
 * kept for the truncation to come, not queued (the file is read from its
 * first byte anyway); no generation is shipped twice. */
static void
a_copy_of_the_file_as_it_is_now_waits_for_its_truncation(void **state)
{
	struct fixture *x = *state;
	append(x->path, "first generation, read in part\n");
	follow(x);
	ssize_t n = follower_read(x->f, x->got, 6);
	assert_int_equal(n, 6);
	x->got_len = 6;
	char cmd[1024];
	snprintf(cmd, sizeof(cmd),
		 "cp %s %s.1 && truncate -s 0 %s && "
		 "printf 'second generation\\n' >>%s && cp %s %s.2",
		 x->path, x->path, x->path, x->path, x->path, x->path);
	assert_int_equal(system(cmd), 0);
	drain(x);
	assert_string_equal(x->got, "first generation, read in part\n"
				    "second generation\n");
	snprintf(cmd, sizeof(cmd), "truncate -s 0 %s", x->path);
	assert_int_equal(system(cmd), 0);
	append(x->path, "third\n");
	drain(x);
	assert_string_equal(x->got, "first generation, read in part\n"
				    "second generation\n"
				    "third\n");
}

/* Truncated and written past where reading was before the reader looked
 * again (no copy): its size cannot tell, its last bytes read can. */
static void a_file_truncated_and_grown_back_is_read_again(void **state)
{
	struct fixture *x = *state;
	setenv("RPMA_SEND_FOLLOW_POLL", "1", 1); /* no events: look later */
	append(x->path, "old line 1\nold line 2\n");
	follow(x);
	drain(x);
	assert_int_equal(truncate(x->path, 0), 0);
	append(x->path, "the new content, longer than the old\n");
	drain(x);
	unsetenv("RPMA_SEND_FOLLOW_POLL");
	assert_string_equal(x->got, "old line 1\nold line 2\n"
				    "the new content, longer than the old\n");
}

/* Growth wakes the reader through its descriptor; polling has none and
 * looks again soon. */
static void growth_wakes_the_reader(void **state)
{
	struct fixture *x = *state;
	append(x->path, "x\n");
	follow(x);
	drain(x);
	int fd = follower_wake_fd(x->f);
	assert_true(fd >= 0);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	assert_int_equal(poll(&p, 1, 0), 0);
	append(x->path, "y\n");
	assert_int_equal(poll(&p, 1, 1000), 1);
	assert_true(follower_recheck_ms(x->f) >= 100);
	drain(x);
	assert_int_equal(poll(&p, 1, 0), 0);
	follower_free(x->f);

	setenv("RPMA_SEND_FOLLOW_POLL", "1", 1);
	x->f = follower_new(x->path, GRACE_MS);
	unsetenv("RPMA_SEND_FOLLOW_POLL");
	assert_int_equal(follower_wake_fd(x->f), -1);
	assert_true(follower_recheck_ms(x->f) <= 50);
}

/* A sender that stops reads what the files hold: a rotated file's
 * successor without waiting for its grace period. */
static void stopping_reads_the_next_file_at_once(void **state)
{
	struct fixture *x = *state;
	append(x->path, "old\n");
	follow(x);
	drain(x);
	assert_int_equal(rename(x->path, x->path1), 0);
	append(x->path, "new\n");
	drain(x);
	assert_string_equal(x->got, "old\n");
	follower_stop_waiting(x->f);
	drain(x);
	assert_string_equal(x->got, "old\nnew\n");
}

/* --resume's start: a rotated copy from a byte, then the path. */
static void starts_in_a_rotated_copy(void **state)
{
	struct fixture *x = *state;
	append(x->path1, "shipped|unshipped\n");
	append(x->path, "live\n");
	follow(x);
	const char *paths[] = {x->path1, x->path};
	assert_true(follower_start_at(x->f, paths, 2, 7));
	drain(x);
	assert_string_equal(x->got, "|unshipped\n");
	wait_quiet(x);
	drain(x);
	assert_string_equal(x->got, "|unshipped\nlive\n");
}

/* Truncated while a backlog of it was being read, and written past that
 * point again: the reader does not go on with the new content's middle. */
static void a_backlog_truncated_and_regrown_is_not_spliced(void **state)
{
	struct fixture *x = *state;
	char old[8001], fresh[12001];
	memset(old, 'o', 8000);
	old[8000] = '\0';
	for (int i = 0; i < 12000; i++)
		fresh[i] = (char)('A' + i % 26);
	fresh[12000] = '\0';
	append(x->path, old);
	follow(x);
	assert_int_equal(follower_read(x->f, x->got, 3000), 3000);
	x->got_len = 3000;
	assert_int_equal(truncate(x->path, 0), 0); /* no copy kept */
	append(x->path, fresh);
	drain(x);
	assert_int_equal(x->got_len, 3000 + 12000);
	assert_memory_equal(x->got, old, 3000);
	assert_memory_equal(x->got + 3000, fresh, 12000);
	/* what it held past the bytes read is in no file: said, counted */
	char lost[512], want[512];
	assert_int_equal(follower_losses(x->f, lost, sizeof(lost)), 1);
	snprintf(want, sizeof(want), "%s bytes 3000 to 8000", x->path);
	assert_non_null(strstr(lost, want));
}

/* A stop: what the files hold at the signal is the backlog; what of it
 * is not read by the end is named, from where reading got to; what came
 * after the signal is no backlog. Read to the end, nothing is left. */
static void a_stop_names_the_backlog_left_unread(void **state)
{
	struct fixture *x = *state;
	char text[10001], left[512], want[512];
	memset(text, 'b', 10000);
	text[10000] = '\0';
	append(x->path, text);
	follow(x);
	assert_int_equal(follower_read(x->f, x->got, 3000), 3000);
	x->got_len = 3000;
	follower_stop_waiting(x->f);
	append(x->path, "after the signal\n");
	assert_int_equal(follower_left(x->f, left, sizeof(left)), 1);
	snprintf(want, sizeof(want),
		 "1 stretch of followed files was left unread at the stop: "
		 "%s bytes 3000 to 10000",
		 x->path);
	assert_string_equal(left, want);
	drain(x);
	assert_int_equal(follower_left(x->f, left, sizeof(left)), 0);
}

/* A stop after two rotations: each file is named where it is now, not by
 * the name it was opened at (all were app.log), and two stretches alike
 * but for the file are both said (seen in the VM test bed: three of four
 * said, each as app.log). */
static void a_stop_names_rotated_files_where_they_are(void **state)
{
	struct fixture *x = *state;
	char text[10001], left[1024], want[1024], path2[160];
	memset(text, 'c', 10000);
	text[10000] = '\0';
	snprintf(path2, sizeof(path2), "%s.2", x->path);
	append(x->path, text);
	follow(x);
	assert_int_equal(follower_read(x->f, x->got, 3000), 3000);
	for (int r = 0; r < 2; r++) {
		if (r)
			assert_int_equal(rename(x->path1, path2), 0);
		assert_int_equal(rename(x->path, x->path1), 0);
		append(x->path, text);
		follower_notice(x->f);
	}
	follower_stop_waiting(x->f);
	assert_int_equal(follower_left(x->f, left, sizeof(left)), 3);
	snprintf(want, sizeof(want),
		 "3 stretches of followed files were left unread at the stop: "
		 "%s bytes 3000 to 10000, %s bytes 0 to 10000, %s bytes 0 to "
		 "10000",
		 path2, x->path1, x->path);
	assert_string_equal(left, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(reads_growth, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_renamed_file_is_read_until_quiet,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_rotated_file_written_before_the_second_look_is_read_on, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		what_a_left_file_gets_later_is_named_a_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(rotations_in_a_row_keep_their_order,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_file_that_held_the_name_for_a_moment_is_read, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		late_deleted_and_symlinked_files_follow, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_truncated_file_ships_its_unread_tail_from_the_copy, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		two_copytruncates_in_one_look_lose_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		two_numbered_copytruncates_in_one_look_lose_nothing, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		hundreds_of_rotations_in_one_look_are_all_read, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_copy_of_the_file_as_it_is_now_waits_for_its_truncation, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_finished_file_that_comes_back_is_not_read_twice, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_file_found_by_its_time_is_opened_when_it_can_be, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_file_truncated_and_grown_back_is_read_again, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_backlog_truncated_and_regrown_is_not_spliced, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_file_told_of_after_lost_events_is_read_after_them, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_file_at_the_name_not_taken_is_found_later, setup, teardown),
	    cmocka_unit_test_setup_teardown(growth_wakes_the_reader, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		a_stop_names_the_backlog_left_unread, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_stop_names_rotated_files_where_they_are, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		stopping_reads_the_next_file_at_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(starts_in_a_rotated_copy, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
