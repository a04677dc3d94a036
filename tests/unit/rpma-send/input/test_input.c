/* The sender's input (input/input.c), no device needed: a file read to its
 * end, which then stays the end; a pipe (opened by its /proc/self/fd path,
 * as <(cmd) gives one) and standard input read as their pieces come, each
 * read taking what is there; a signal ends a read that waits (-1, EINTR)
 * so that the caller looks at the stop flag; a FIFO whose writer never
 * comes, its open ended by a signal: RS_E_INTERRUPTED when the user asked
 * to stop, else RS_E_IO; the open's errors with their fix; -f refuses
 * standard input and waits for a file not there yet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/stop.h"
#include "error.h"
#include "input/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint8_t byte_at(size_t i)
{
	return (uint8_t)(i * 7 + i / 251);
}

/* ---- a signal sent to the test's thread until it is back ---- */

/* What the sender's SIGINT handler does (or, for another signal,
 * nothing); no SA_RESTART, so a waiting read or open is interrupted. */
static volatile sig_atomic_t stop_on_signal;

static void on_signal(int sig)
{
	if (stop_on_signal)
		send_stop_requested = sig;
}

static struct {
	pthread_t target, thread;
	atomic_bool back;
	bool started;
} nudger;

/* Every 20 ms: one sent before the call waits would be lost. */
static void *nudge(void *arg)
{
	(void)arg;
	while (!atomic_load(&nudger.back)) {
		usleep(20000);
		pthread_kill(nudger.target, SIGUSR1);
	}
	return NULL;
}

static void nudge_start(bool stop)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	stop_on_signal = stop;
	nudger.target = pthread_self();
	atomic_store(&nudger.back, false);
	assert_int_equal(pthread_create(&nudger.thread, NULL, nudge, NULL), 0);
	nudger.started = true;
}

static void nudge_end(void)
{
	atomic_store(&nudger.back, true);
	pthread_join(nudger.thread, NULL);
	nudger.started = false;
}

/* Also after a test that failed while one waited. */
static void teardown_nudger(void)
{
	if (nudger.started)
		nudge_end();
	send_stop_requested = 0;
	stop_on_signal = 0;
}

/* ---- a scratch directory: DIR/in, DIR/fifo, DIR/later.log ---- */

struct fixture {
	char dir[64];
	char path[96];
	int pipe[2];   /* -1: none */
	int stdin_was; /* the test's own standard input, while replaced */
};

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));
	assert_non_null(x);
	strcpy(x->dir, "/tmp/rs-test-input-XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	x->pipe[0] = x->pipe[1] = -1;
	x->stdin_was = -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	teardown_nudger();
	if (x->stdin_was >= 0) {
		dup2(x->stdin_was, STDIN_FILENO);
		close(x->stdin_was);
	}
	for (int i = 0; i < 2; i++)
		if (x->pipe[i] >= 0)
			close(x->pipe[i]);
	const char *names[] = {"in", "fifo", "later.log"};
	char path[128];
	for (unsigned i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", x->dir, names[i]);
		unlink(path);
	}
	rmdir(x->dir);
	free(x);
	return 0;
}

/* x->path: DIR/name. */
static const char *path_of(struct fixture *x, const char *name)
{
	snprintf(x->path, sizeof(x->path), "%s/%s", x->dir, name);
	return x->path;
}

/* A pipe whose reading end x->path names, as bash's <(cmd) does. */
static const char *pipe_path(struct fixture *x)
{
	assert_int_equal(pipe(x->pipe), 0);
	snprintf(x->path, sizeof(x->path), "/proc/self/fd/%d", x->pipe[0]);
	return x->path;
}

/* fd as standard input (put back at the teardown). */
static void as_standard_input(struct fixture *x, int fd)
{
	if (x->stdin_was < 0)
		x->stdin_was = dup(STDIN_FILENO);
	assert_true(x->stdin_was >= 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
}

/* Bytes [from, from + n) of the pattern into the pipe. */
static void feed(struct fixture *x, size_t from, size_t n)
{
	uint8_t piece[512];
	assert_true(n <= sizeof(piece));
	for (size_t i = 0; i < n; i++)
		piece[i] = byte_at(from + i);
	assert_int_equal(write(x->pipe[1], piece, n), (ssize_t)n);
}

/* A read of at most cap gets want bytes, the pattern's from `from`. */
static void read_gets(struct send_input *in, size_t cap, size_t from,
		      size_t want)
{
	uint8_t buf[4096];
	assert_true(cap <= sizeof(buf));
	assert_int_equal(send_input_read(in, buf, cap), (ssize_t)want);
	for (size_t i = 0; i < want; i++)
		assert_int_equal(buf[i], byte_at(from + i));
}

/* Nothing to read on the descriptor the sender polls. */
static void nothing_waits(const struct send_input *in)
{
	struct pollfd p = {.fd = send_input_wait_fd(in), .events = POLLIN};
	assert_int_equal(poll(&p, 1, 0), 0);
}

/* ---- the tests ---- */

/* 10000 bytes read 4096 at a time: two whole reads, the rest, then the
 * end, which stays the end though the file grows after it (the sender's
 * --truncate sized the log by what was left: send_input_size). */
static void a_file_is_read_to_its_end_and_the_end_stays(void **state)
{
	struct fixture *x = *state;
	const char *path = path_of(x, "in");
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	uint8_t bytes[10000];
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = byte_at(i);
	assert_int_equal(write(fd, bytes, sizeof(bytes)), sizeof(bytes));
	struct send_input in;
	struct rs_error err = {0};
	assert_int_equal(send_input_open(&in, path, &err), 0);
	assert_string_equal(in.name, path);
	assert_true(in.is_regular);
	assert_int_equal(send_input_wait_fd(&in), -1); /* always ready */
	assert_int_equal(send_input_size(&in), 10000);
	read_gets(&in, 4096, 0, 4096);
	assert_int_equal(send_input_size(&in), 10000 - 4096);
	read_gets(&in, 4096, 4096, 4096);
	read_gets(&in, 4096, 8192, 10000 - 8192);
	assert_false(in.eof);
	read_gets(&in, 4096, 0, 0);
	assert_true(in.eof);
	assert_int_equal(in.pos, 10000);
	assert_int_equal(send_input_size(&in), 0);
	assert_int_equal(write(fd, bytes, 100), 100);
	read_gets(&in, 4096, 0, 0);
	assert_int_equal(in.pos, 10000);
	close(fd);
	send_input_close(&in);
	assert_int_equal(in.fd, -1);
}

/* A pipe fed 100, then 300 bytes: each read takes what is there, never
 * waiting to fill what it may take; its writer gone, the end. */
static void a_pipe_is_read_as_its_pieces_come(void **state)
{
	struct fixture *x = *state;
	struct send_input in;
	struct rs_error err = {0};
	assert_int_equal(send_input_open(&in, pipe_path(x), &err), 0);
	assert_false(in.is_regular);
	assert_true(send_input_wait_fd(&in) >= 0); /* to poll before reading */
	assert_int_equal(send_input_size(&in), 0); /* not known */
	feed(x, 0, 100);
	read_gets(&in, 4096, 0, 100);
	nothing_waits(&in);
	feed(x, 100, 300);
	read_gets(&in, 250, 100, 250);
	read_gets(&in, 4096, 350, 50);
	nothing_waits(&in);
	assert_false(in.eof);
	close(x->pipe[1]);
	x->pipe[1] = -1;
	read_gets(&in, 4096, 0, 0);
	assert_true(in.eof);
	assert_int_equal(in.pos, 400);
	send_input_close(&in);
}

/* "-": a pipe as standard input is polled and read as it comes; a file
 * as standard input is regular, with its size known. Closing the input
 * leaves descriptor 0 open. */
static void standard_input_is_read_as_what_it_is(void **state)
{
	struct fixture *x = *state;
	pipe_path(x);
	as_standard_input(x, x->pipe[0]);
	struct send_input in;
	struct rs_error err = {0};
	assert_int_equal(send_input_open(&in, "-", &err), 0);
	assert_string_equal(in.name, "standard input");
	assert_false(in.is_regular);
	assert_int_equal(send_input_wait_fd(&in), STDIN_FILENO);
	feed(x, 0, 3);
	read_gets(&in, 4096, 0, 3);
	send_input_close(&in);
	assert_int_not_equal(fcntl(STDIN_FILENO, F_GETFD), -1);

	const char *path = path_of(x, "in");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	assert_int_equal(lseek(fd, 4, SEEK_SET), 4); /* left to read: 6 */
	as_standard_input(x, fd);
	assert_int_equal(send_input_open(&in, "-", &err), 0);
	assert_true(in.is_regular);
	assert_int_equal(send_input_wait_fd(&in), -1);
	assert_int_equal(send_input_size(&in), 6);
	send_input_close(&in);
	close(fd);
}

/* A signal while a read waits on an empty pipe: the read returns -1 with
 * EINTR at once, not the end, so that the sender's loop sees the stop
 * flag its handler set; what comes after is still read. */
static void a_signal_ends_a_read_that_waits(void **state)
{
	struct fixture *x = *state;
	struct send_input in;
	struct rs_error err = {0};
	assert_int_equal(send_input_open(&in, pipe_path(x), &err), 0);
	uint8_t buf[64];
	nudge_start(true);
	errno = 0;
	ssize_t n = send_input_read(&in, buf, sizeof(buf));
	int e = errno;
	nudge_end();
	assert_int_equal(n, -1);
	assert_int_equal(e, EINTR);
	assert_int_equal(send_stop_requested, SIGUSR1);
	assert_false(in.eof);
	feed(x, 0, 10);
	read_gets(&in, sizeof(buf), 0, 10);
	assert_int_equal(in.pos, 10);
	send_input_close(&in);
}

/* A FIFO whose writer never comes: its open waits until a signal. The
 * user's stop is no error of the file (RS_E_INTERRUPTED, the caller says
 * so); another signal is: RS_E_IO naming it. */
static void a_fifo_open_ended_by_a_signal_is_a_stop_only_if_asked(void **state)
{
	struct fixture *x = *state;
	const char *path = path_of(x, "fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	char want[160];
	struct send_input in;
	struct rs_error err = {0};
	nudge_start(true);
	int rc = send_input_open(&in, path, &err);
	nudge_end();
	assert_int_equal(rc, RS_E_INTERRUPTED);
	assert_int_equal(err.sys_errno, EINTR);
	snprintf(want, sizeof(want), "interrupted while opening %s", path);
	assert_string_equal(err.msg, want);
	assert_int_equal(in.fd, -1);

	send_stop_requested = 0;
	nudge_start(false);
	rc = send_input_open(&in, path, &err);
	nudge_end();
	assert_int_equal(rc, RS_E_IO);
	assert_int_equal(send_stop_requested, 0);
	snprintf(want, sizeof(want),
		 "cannot open input %s: Interrupted system call", path);
	assert_string_equal(err.msg, want);
}

/* What an input that cannot be opened is told, with what to do. */
static void an_input_not_opened_says_why_and_the_fix(void **state)
{
	struct fixture *x = *state;
	char want[256];
	struct send_input in;
	struct rs_error err = {0};
	const char *path = path_of(x, "none");
	assert_int_equal(send_input_open(&in, path, &err), RS_E_IO);
	assert_int_equal(err.sys_errno, ENOENT);
	snprintf(want, sizeof(want),
		 "cannot open input %s: No such file or directory: check the "
		 "path, or give - for standard input",
		 path);
	assert_string_equal(err.msg, want);

	assert_int_equal(send_input_open(&in, x->dir, &err), RS_E_IO);
	assert_int_equal(err.sys_errno, EISDIR);
	snprintf(want, sizeof(want), "input %s is a directory; give a file",
		 x->dir);
	assert_string_equal(err.msg, want);
	assert_int_equal(in.fd, -1); /* closed again */

	/* (the tests run as any user: the refusal is given, not provoked) */
	assert_int_equal(send_input_open_failed("app.log", EACCES, &err),
			 RS_E_IO);
	const struct passwd *pw = getpwuid(geteuid());
	snprintf(want, sizeof(want),
		 "cannot open input app.log: permission denied: it must be "
		 "readable by this user (%s)",
		 pw ? pw->pw_name : "this user");
	assert_string_equal(err.msg, want);
}

/* -f takes a path, not standard input; a file not there yet is waited
 * for, a read finding nothing new being no end. */
static void follow_waits_for_a_file_not_standard_input(void **state)
{
	struct fixture *x = *state;
	struct send_input in;
	struct rs_error err = {0};
	assert_int_equal(send_input_follow(&in, "-", 1000, &err), RS_E_INVAL);
	assert_non_null(strstr(err.msg, "pipe `tail -F FILE` instead"));

	assert_int_equal(
	    send_input_follow(&in, path_of(x, "later.log"), 1000, &err), 0);
	assert_true(in.follow);
	assert_int_equal(send_input_wait_fd(&in), -1);
	assert_int_equal(send_input_size(&in), 0); /* it grows */
	uint8_t buf[16];
	assert_int_equal(send_input_read(&in, buf, sizeof(buf)), 0);
	assert_false(in.eof);
	send_input_close(&in);
}

int main(void)
{
#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
	    TEST(a_file_is_read_to_its_end_and_the_end_stays),
	    TEST(a_pipe_is_read_as_its_pieces_come),
	    TEST(standard_input_is_read_as_what_it_is),
	    TEST(a_signal_ends_a_read_that_waits),
	    TEST(a_fifo_open_ended_by_a_signal_is_a_stop_only_if_asked),
	    TEST(an_input_not_opened_says_why_and_the_fix),
	    TEST(follow_waits_for_a_file_not_standard_input),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
