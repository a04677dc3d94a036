/* input/follow_fds.c: a follower's opens leave the connection its reserve
 * of descriptors, and a follower starts with the soft limit raised. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/fd_limit.h"
#include "input/follow_fds.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

/* The soft limit set to what is open now plus `more`. */
static void limit_to(unsigned more)
{
	int probe = open("/dev/null", O_RDONLY);
	assert_true(probe >= 0);
	close(probe);
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = (rlim_t)probe + more;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

static void the_reserve_is_left_for_the_connection(void **state)
{
	(void)state;
	limit_to(600); /* FOLLOW_FDS_RESERVE is less than an eighth */
	int held[600], n = 0, fd;
	while ((fd = follow_fds_open("/dev/null", O_RDONLY)) >= 0)
		held[n++] = fd;
	assert_int_equal(errno, EMFILE);
	/* (a few descriptors above the lowest free one may be taken) */
	assert_in_range(n, 600 - FOLLOW_FDS_RESERVE - 8,
			600 - FOLLOW_FDS_RESERVE);
	/* what the connection will open still opens */
	int spare[FOLLOW_FDS_RESERVE];
	for (int i = 0; i < FOLLOW_FDS_RESERVE - 1; i++) {
		spare[i] = open("/dev/null", O_RDONLY);
		assert_true(spare[i] >= 0);
	}
	for (int i = 0; i < FOLLOW_FDS_RESERVE - 1; i++)
		close(spare[i]);
	/* one file done: the next is held */
	close(held[--n]);
	fd = follow_fds_open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	held[n++] = fd;
	while (n)
		close(held[--n]);
}

/* A limit too small for the whole reserve keeps an eighth, one at least. */
static void a_small_limit_keeps_a_smaller_reserve(void **state)
{
	(void)state;
	assert_int_equal(follow_fds_reserve(1024), FOLLOW_FDS_RESERVE);
	assert_int_equal(follow_fds_reserve(80), 10);
	assert_int_equal(follow_fds_reserve(7), 1);
}

static void the_soft_limit_goes_up_to_the_hard_one(void **state)
{
	(void)state;
	limit_to(100);
	rs_fd_limit_raise();
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_true(rl.rlim_cur == rl.rlim_max);
	assert_true(rs_fd_limit() == 0 || rs_fd_limit() == rl.rlim_max);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_reserve_is_left_for_the_connection),
	    cmocka_unit_test(a_small_limit_keeps_a_smaller_reserve),
	    cmocka_unit_test(the_soft_limit_goes_up_to_the_hard_one),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
