/* The tests' knob (src/rpma-recv/pool/stop_at.c), in a child process each
 * (it reads RPMA_RECV_STOP_AT once, and stops the process): the step named
 * stops it, another step does not; with the hold file there, the caller
 * waits until it goes instead of stopping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/log.h"
#include "pool/stop_at.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child that calls recv_stop_at on each step in turn, then exits 0. */
static pid_t child(const char *want, const char *hold, const char *steps[])
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid)
		return pid;
	rs_log_init("test", RS_LOG_QUIET);
	setenv("RPMA_RECV_STOP_AT", want, 1);
	if (hold)
		setenv("RPMA_RECV_HOLD_FILE", hold, 1);
	for (int i = 0; steps[i]; i++)
		recv_stop_at(steps[i]);
	_exit(0);
}

static void the_step_named_stops_the_process(void **state)
{
	(void)state;
	const char *steps[] = {"archive-copy", "commit-data-persisted", 0};
	pid_t pid = child("commit-data-persisted", 0, steps);
	int st;
	assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
	assert_true(WIFSTOPPED(st));
	assert_int_equal(WSTOPSIG(st), SIGSTOP);
	kill(pid, SIGKILL); /* as the test bed cuts it there */
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
}

static void other_steps_go_on(void **state)
{
	(void)state;
	const char *steps[] = {"archive-copy", "switch-moving", 0};
	pid_t pid = child("base-recorded", 0, steps);
	int st;
	assert_int_equal(waitpid(pid, &st, WUNTRACED), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* While the hold file exists the caller waits at the step (the process
 * goes on: its other threads answer), and goes on once it is removed. */
static void the_hold_file_holds_the_caller_instead(void **state)
{
	(void)state;
	char hold[] = "/tmp/rs-test-stop-at-XXXXXX";
	int fd = mkstemp(hold);
	assert_true(fd >= 0);
	close(fd);
	const char *steps[] = {"archive-copy", 0};
	pid_t pid = child("archive-copy", hold, steps);
	usleep(100000);
	int st;
	assert_int_equal(waitpid(pid, &st, WNOHANG | WUNTRACED), 0); /* held */
	assert_int_equal(unlink(hold), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_step_named_stops_the_process),
	    cmocka_unit_test(other_steps_go_on),
	    cmocka_unit_test(the_hold_file_holds_the_caller_instead),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
