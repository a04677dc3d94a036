/* FILE as the verify pipeline's source (verify/file.c): each read fills
 * what was asked, short only where the input ends, from a file or from a
 * pipe that gives its bytes a few at a time; a read a signal interrupts is
 * read again unless the user asked to stop; an unreadable FILE is RS_E_IO
 * naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/stop.h"
#include "error.h"
#include "verify/file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIECE 100
#define PIECES 5

static int source_read(struct verify_source *s, uint8_t *buf, size_t len,
		       size_t *got, struct rs_error *err)
{
	return s->read(s->ctx, buf, len, got, err);
}

/* A file of 10000 bytes read 4096 at a time: two whole reads, the rest,
 * then nothing. */
static void a_file_fills_each_read_but_its_last(void **state)
{
	(void)state;
	char path[] = "/tmp/test_verify_file_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	static uint8_t bytes[10000], buf[4096];
	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 7);
	assert_int_equal(write(fd, bytes, sizeof(bytes)), sizeof(bytes));
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	struct verify_file f = {fd, "FILE"};
	struct verify_source s = verify_file_source(&f);
	struct rs_error err = {0};
	size_t got, at = 0;
	const size_t want[] = {4096, 4096, 10000 - 8192, 0};
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(source_read(&s, buf, sizeof(buf), &got, &err),
				 0);
		assert_int_equal(got, want[i]);
		assert_memory_equal(buf, bytes + at, got);
		at += got;
	}
	close(fd);
}

/* ---- a pipe fed a piece at a time ---- */

struct feeder {
	pthread_t reader;
	int fd, read_fd; /* the pipe's ends */
	int signals;	 /* sent to the reader before the bytes, or */
	bool signal_on;	 /* sent until the reader returns */
	atomic_bool returned;
	bool closed; /* its end, by the feeder */
	pthread_t thread;
	bool started;
};

/* One at a time; stopped after each test, even one that failed. */
static struct feeder feeder;

static uint8_t piece_byte(unsigned piece, unsigned i)
{
	return (uint8_t)(piece * 31 + i);
}

static void *feed(void *arg)
{
	struct feeder *f = arg;
	for (int i = 0; i < f->signals; i++) {
		usleep(20000); /* the reader waits in read() meanwhile */
		pthread_kill(f->reader, SIGUSR1);
	}
	for (int i = 0; f->signal_on && !atomic_load(&f->returned); i++) {
		if (i == 100) { /* 2 s: the read ignores them; end it */
			close(f->fd);
			f->closed = true;
			return NULL;
		}
		usleep(20000);
		pthread_kill(f->reader, SIGUSR1);
	}
	if (f->signal_on)
		return NULL;
	uint8_t piece[PIECE];
	for (unsigned p = 0; p < PIECES; p++) {
		for (unsigned i = 0; i < PIECE; i++)
			piece[i] = piece_byte(p, i);
		usleep(10000); /* each piece a read of its own */
		if (write(f->fd, piece, PIECE) != PIECE)
			break; /* the reader sees the pipe end short */
	}
	close(f->fd);
	f->closed = true;
	return NULL;
}

/* What the user's SIGINT does: the handler sets the stop flag (or, for
 * another signal, nothing); no SA_RESTART, so read() is interrupted. */
static volatile sig_atomic_t stop_on_signal;
static volatile sig_atomic_t signals_seen;

static void on_signal(int sig)
{
	signals_seen++;
	if (stop_on_signal)
		send_stop_requested = sig;
}

/* The pipe's end to read, fed as asked. */
static int pipe_with_feeder(int signals, bool signal_on)
{
	struct feeder *f = &feeder;
	int p[2];
	assert_int_equal(pipe(p), 0);
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	f->reader = pthread_self();
	f->read_fd = p[0];
	f->fd = p[1];
	f->signals = signals;
	f->signal_on = signal_on;
	f->closed = false;
	atomic_store(&f->returned, false);
	assert_int_equal(pthread_create(&f->thread, NULL, feed, f), 0);
	f->started = true;
	return p[0];
}

static int stop_feeder(void **state)
{
	(void)state;
	struct feeder *f = &feeder;
	if (!f->started)
		return 0;
	atomic_store(&f->returned, true);
	pthread_join(f->thread, NULL);
	if (!f->closed)
		close(f->fd);
	close(f->read_fd);
	f->started = false;
	send_stop_requested = 0;
	stop_on_signal = 0;
	return 0;
}

/* 500 bytes come in 5 pieces: a read of 250 waits for all of 250, the
 * next is given the other 250, then the end. */
static void a_pipe_fills_each_read_from_its_pieces(void **state)
{
	(void)state;
	int fd = pipe_with_feeder(0, false);
	struct verify_file vf = {fd, "-"};
	struct verify_source s = verify_file_source(&vf);
	struct rs_error err = {0};
	uint8_t buf[PIECE * PIECES];
	size_t got;
	assert_int_equal(source_read(&s, buf, 250, &got, &err), 0);
	assert_int_equal(got, 250);
	assert_int_equal(source_read(&s, buf + 250, 400, &got, &err), 0);
	assert_int_equal(got, 250);
	for (unsigned i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], piece_byte(i / PIECE, i % PIECE));
	assert_int_equal(source_read(&s, buf, 1, &got, &err), 0);
	assert_int_equal(got, 0);
}

/* Signals while the read waits on a pipe, the user not asking to stop:
 * the read goes on and gets every byte. */
static void a_signal_does_not_cut_a_read_short(void **state)
{
	(void)state;
	signals_seen = 0;
	int fd = pipe_with_feeder(5, false);
	struct verify_file vf = {fd, "-"};
	struct verify_source s = verify_file_source(&vf);
	struct rs_error err = {0};
	uint8_t buf[PIECE * PIECES];
	size_t got;
	assert_int_equal(source_read(&s, buf, sizeof(buf), &got, &err), 0);
	assert_int_equal(got, sizeof(buf));
	assert_int_equal(signals_seen, 5);
}

/* The user's stop while the read waits: it ends, as trouble with FILE
 * (nothing was compared), naming it. */
static void a_stop_ends_a_read_that_waits(void **state)
{
	(void)state;
	stop_on_signal = 1;
	int fd = pipe_with_feeder(0, true);
	struct verify_file vf = {fd, "in.fifo"};
	struct verify_source s = verify_file_source(&vf);
	struct rs_error err = {0};
	uint8_t buf[16];
	size_t got = 99;
	assert_int_equal(source_read(&s, buf, sizeof(buf), &got, &err),
			 RS_E_IO);
	assert_int_equal(got, 0);
	assert_int_equal(err.sys_errno, EINTR);
	assert_string_equal(err.msg, "cannot read in.fifo: Interrupted system "
				     "call");
}

/* A directory given as FILE: RS_E_IO with its name and why. */
static void an_unreadable_file_is_an_io_error(void **state)
{
	(void)state;
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	struct verify_file f = {fd, "/"};
	struct verify_source s = verify_file_source(&f);
	struct rs_error err = {0};
	uint8_t buf[16];
	size_t got;
	assert_int_equal(source_read(&s, buf, sizeof(buf), &got, &err),
			 RS_E_IO);
	assert_int_equal(err.code, RS_E_IO);
	assert_int_equal(err.sys_errno, EISDIR);
	assert_string_equal(err.msg, "cannot read /: Is a directory");
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_file_fills_each_read_but_its_last),
	    cmocka_unit_test_teardown(a_pipe_fills_each_read_from_its_pieces,
				      stop_feeder),
	    cmocka_unit_test_teardown(a_signal_does_not_cut_a_read_short,
				      stop_feeder),
	    cmocka_unit_test_teardown(a_stop_ends_a_read_that_waits,
				      stop_feeder),
	    cmocka_unit_test(an_unreadable_file_is_an_io_error),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
