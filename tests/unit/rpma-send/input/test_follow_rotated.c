/* input/follow_rotated.c: the copies of a followed file, newest first.
 * File times tick coarsely (a few ms), so copies made one after another
 * often share one: logrotate's numbers then say which is newer (NAME.99
 * before NAME.100; by name alone .100 came first and the follower read
 * two rotations' lines swapped), and dated names the later date first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "input/follow_rotated.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	char path[96];
};

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));
	strcpy(x->dir, "/tmp/follow-rotated.XXXXXX");
	assert_non_null(mkdtemp(x->dir));
	snprintf(x->path, sizeof(x->path), "%s/app.log", x->dir);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
	assert_int_equal(system(cmd), 0);
	free(x);
	return 0;
}

/* DIR/NAME, a few bytes, modified at `sec` (whole seconds). */
static void make(const struct fixture *x, const char *name, time_t sec)
{
	char p[160];
	snprintf(p, sizeof(p), "%s/%s", x->dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x\n", 2), 2);
	struct timespec t[2] = {{.tv_sec = sec}, {.tv_sec = sec}};
	assert_int_equal(futimens(fd, t), 0);
	close(fd);
}

/* The listed copies' names, newest first, joined by spaces. */
static void listed(const struct fixture *x, char *out, size_t cap)
{
	struct follow_copy c[8];
	int n = follow_rotated_list(x->path, c, 8, false);
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		const char *name = strrchr(c[i].path, '/') + 1;
		snprintf(out + strlen(out), cap - strlen(out), "%s%s",
			 i ? " " : "", name);
	}
}

static void numbered_copies_of_one_time_the_smaller_number_newer(void **state)
{
	struct fixture *x = *state;
	char got[256];
	make(x, "app.log", 2000);
	make(x, "app.log.100", 1000);
	make(x, "app.log.99", 1000);
	make(x, "app.log.2", 1000);
	make(x, "app.log.101.gz", 1000);
	listed(x, got, sizeof(got));
	assert_string_equal(got, "app.log.2 app.log.99 app.log.100");
}

static void extension_numbers_too(void **state)
{
	struct fixture *x = *state;
	char got[256];
	make(x, "app.log", 2000);
	make(x, "app.10.log", 1000);
	make(x, "app.9.log", 1000);
	listed(x, got, sizeof(got));
	assert_string_equal(got, "app.9.log app.10.log");
}

static void dated_copies_of_one_time_the_later_date_newer(void **state)
{
	struct fixture *x = *state;
	char got[256];
	make(x, "app.log", 2000);
	make(x, "app.log-20261126", 1000);
	make(x, "app.log-20261127", 1000);
	listed(x, got, sizeof(got));
	assert_string_equal(got, "app.log-20261127 app.log-20261126");
}

static void the_time_comes_first(void **state)
{
	struct fixture *x = *state;
	char got[256];
	make(x, "app.log", 2000);
	make(x, "app.log.1", 1000);
	make(x, "app.log.2", 1500); /* renamed oddly: its time rules */
	listed(x, got, sizeof(got));
	assert_string_equal(got, "app.log.2 app.log.1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		numbered_copies_of_one_time_the_smaller_number_newer, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(extension_numbers_too, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		dated_copies_of_one_time_the_later_date_newer, setup, teardown),
	    cmocka_unit_test_setup_teardown(the_time_comes_first, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
