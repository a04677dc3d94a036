/* One writer per pool: a pool one process serves (recv_pmem_target_open on a
 * real libpmemlog pool in a plain file) is refused to a second process,
 * which is told the holder's pid; it stays locked while the holder opens
 * and closes other descriptors of the file, and is free again once the
 * holder closes it. A PMDK program reading the pool makes a start wait. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../temp_pool.h"
#include "pool/pmem_target.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#define POOL_SIZE (8u << 20)

struct fixture {
	char path[64];
	struct recv_pmem_target t;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (temp_pool_open(f->path, "/tmp/rs-test-lock-XXXXXX", &f->t,
			   POOL_SIZE))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	temp_pool_close(f->path, &f->t);
	free(f);
	return 0;
}

/* Opens the pool in a child process; returns what it printed through a
 * pipe: "ok" or its error line. */
static void open_elsewhere(const char *path, char *out, size_t len)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct recv_pmem_target t;
		struct rs_error err = {0};
		int rc = recv_pmem_target_open(&t, path, POOL_SIZE, &err);
		dprintf(p[1], "%s", rc ? err.msg : "ok");
		_exit(0);
	}
	close(p[1]);
	ssize_t n = read(p[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(pid, 0, 0);
}

static void second_opener_is_refused_with_the_holders_pid(void **state)
{
	struct fixture *f = *state;
	char got[600], want[128];
	open_elsewhere(f->path, got, sizeof(got));
	snprintf(want, sizeof(want), "is in use by another rpma-recv (pid %ld)",
		 (long)getpid());
	if (!strstr(got, want))
		fail_msg("'%s' lacks '%s'", got, want);
	assert_non_null(strstr(got, f->path));
}

static void other_descriptors_do_not_drop_the_lock(void **state)
{
	struct fixture *f = *state;
	int fd = open(f->path, O_RDWR);
	assert_true(fd >= 0);
	close(fd); /* releases a plain process lock on the file */
	char got[600];
	open_elsewhere(f->path, got, sizeof(got));
	/* Still refused: the guard holds (only the pid may go unnamed). */
	if (!strstr(got, "is in use by another"))
		fail_msg("not refused: '%s'", got);
}

static void closing_frees_the_pool(void **state)
{
	struct fixture *f = *state;
	recv_pmem_target_close(&f->t);
	char got[600];
	open_elsewhere(f->path, got, sizeof(got));
	assert_string_equal(got, "ok");
}

/* pmempool info or dump holds libpmemlog's flock(2) while it reads a
 * pool: a receiver starting then waits for it instead of failing. */
static void a_pmdk_reader_is_waited_for(void **state)
{
	struct fixture *f = *state;
	recv_pmem_target_close(&f->t);
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(f->path, O_RDONLY);
		flock(fd, LOCK_EX);
		close(p[1]); /* tells the parent the lock is held */
		usleep(1000 * 1000);
		_exit(0);
	}
	close(p[1]);
	char c;
	assert_int_equal(read(p[0], &c, 1), 0);
	close(p[0]);
	struct rs_error err = {0};
	int rc = recv_pmem_target_open(&f->t, f->path, POOL_SIZE, &err);
	waitpid(pid, 0, 0);
	if (rc)
		fail_msg("not waited for: %s", err.msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		second_opener_is_refused_with_the_holders_pid, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		other_descriptors_do_not_drop_the_lock, setup, teardown),
	    cmocka_unit_test_setup_teardown(closing_frees_the_pool, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_pmdk_reader_is_waited_for, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
