/* What a process costs, read from /proc (cli/proc_status.h): this
 * process's threads counted as they come and go, its resident memory
 * growing with what it touches, a process gone said as such; its age
 * since exec, within what the test itself has taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/proc_status.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *held(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock); /* until the test lets it go */
	pthread_mutex_unlock(&lock);
	return NULL;
}

#define THREADS 3

/* (A sanitizer may start a thread of its own with the first one made:
 * the count is compared with the threads there, and after they went.) */
static void threads_and_memory(void **state)
{
	(void)state;
	struct rs_proc_status before, with, after;
	assert_int_equal(rs_proc_status_read(0, &before), 0);
	assert_true(before.threads >= 1);
	assert_true(before.resident_bytes > 0);
	assert_true(before.anon_bytes <= before.resident_bytes);
	pthread_mutex_lock(&lock);
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, held, NULL), 0);
	size_t big = 64u << 20;
	char *touched = malloc(big);
	assert_non_null(touched);
	memset(touched, 1, big);
	assert_int_equal(rs_proc_status_read(getpid(), &with), 0);
	assert_true(with.threads >= before.threads + THREADS);
	assert_true(with.anon_bytes >= before.anon_bytes + big / 2);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	free(touched);
	assert_int_equal(rs_proc_status_read(0, &after), 0);
	assert_int_equal(with.threads - after.threads, THREADS);
}

static void a_process_gone(void **state)
{
	(void)state;
	pid_t child = fork();
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	struct rs_proc_status s;
	assert_int_equal(rs_proc_status_read(child, &s), -1);
}

static void its_age(void **state)
{
	(void)state;
	uint64_t a, b;
	assert_int_equal(rs_proc_age_ns(&a), 0);
	struct timespec nap = {0, 200 * 1000000};
	nanosleep(&nap, NULL);
	assert_int_equal(rs_proc_age_ns(&b), 0);
	/* clock ticks of 10 ms: 200 ms later, less a tick at most */
	assert_true(b >= a + 180 * 1000000ull);
	assert_true(b <= a + 2000 * 1000000ull); /* a loaded host */
	assert_true(a < 600 * 1000000000ull);	 /* started this test run */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(threads_and_memory),
	    cmocka_unit_test(a_process_gone),
	    cmocka_unit_test(its_age),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
