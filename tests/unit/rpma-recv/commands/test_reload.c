/* rpma-recv --reload PID against a fake receiver, a child process with the
 * receiver's own half (service/reload_ask.h) in its SIGHUP handler: the
 * command returns once the receiver answers (0 done, 2 its file refused), 3
 * when it ends first, 2 for no such process, and 0 with a warning, after
 * its wait, for a receiver that never answers (one older than --reload). A
 * plain SIGHUP (kill -HUP) is answered by nobody; answers sent before the
 * asker looks wait for it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands/reload.h"
#include "service/reload_ask.h"

/* What the fake receiver does once asked. */
enum fake_mode {
	FAKE_DONE = RECV_RELOAD_DONE,
	FAKE_KEPT = RECV_RELOAD_KEPT,
	FAKE_EXIT,   /* ends before its reload is done */
	FAKE_SILENT, /* reloads and says nothing: before --reload */
	FAKE_PLAIN,  /* exit 0 if the SIGHUP noted no asker */
};

static volatile sig_atomic_t hup;

static void on_hup(int sig, siginfo_t *info, void *context)
{
	(void)sig, (void)context;
	recv_reload_ask_note(info);
	hup = 1;
}

static void on_hup_silent(int sig)
{
	(void)sig;
	hup = 1;
}

static void fake_receiver(enum fake_mode mode, int ready)
{
	sigset_t hups, none;
	sigemptyset(&hups);
	sigaddset(&hups, SIGHUP);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &hups, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	if (mode == FAKE_SILENT) {
		sa.sa_handler = on_hup_silent;
	} else {
		sa.sa_sigaction = on_hup;
		sa.sa_flags = SA_SIGINFO;
	}
	sigaction(SIGHUP, &sa, 0);
	(void)!write(ready, "r", 1);
	while (!hup)
		sigsuspend(&none);
	struct recv_reload_asker asker = recv_reload_ask_take();
	if (mode == FAKE_PLAIN)
		_exit(asker.pid == 0 && asker.pidfd == -1 ? 0 : 1);
	if (mode == FAKE_EXIT || mode == FAKE_SILENT)
		_exit(0);
	nanosleep(&(struct timespec){0, 300000000}, 0); /* its reload */
	recv_reload_ask_answer(&asker, (enum recv_reload_answer)mode);
	_exit(asker.pid == 0 && asker.pidfd == -1 ? 0 : 1);
}

/* Holds the answers' signal for sigtimedwait (as the command does). */
static sigset_t block_answers(void)
{
	sigset_t answers;
	sigemptyset(&answers);
	sigaddset(&answers, RECV_RELOAD_ANSWER_SIGNAL);
	sigprocmask(SIG_BLOCK, &answers, 0);
	return answers;
}

/* A fake receiver started and ready for signals. */
static pid_t start_fake(enum fake_mode mode)
{
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		fake_receiver(mode, ready[1]);
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	return pid;
}

static int fake_exit_status(pid_t pid)
{
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* rpma-recv --reload PID in a child of its own: its pid (its exit status
 * is the command's). */
static pid_t start_reload(pid_t pid)
{
	pid_t asker = fork();
	assert_true(asker >= 0);
	if (!asker)
		_exit(recv_reload_command(pid));
	return asker;
}

static void test_done_after_the_reload(void **state)
{
	(void)state;
	pid_t pid = start_fake(FAKE_DONE);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(recv_reload_command(pid), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* it waited for the answer, not only for the signal's receipt */
	long ms = (t1.tv_sec - t0.tv_sec) * 1000 +
		  (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 250);
	assert_int_equal(fake_exit_status(pid), 0);
}

static void test_kept_configuration_is_2(void **state)
{
	(void)state;
	pid_t pid = start_fake(FAKE_KEPT);
	assert_int_equal(recv_reload_command(pid), 2);
	assert_int_equal(fake_exit_status(pid), 0);
}

static void test_receiver_ended_first_is_3(void **state)
{
	(void)state;
	pid_t pid = start_fake(FAKE_EXIT);
	/* (the command runs apart: until this process reaps the fake,
	 * kill(pid, 0) finds a zombie) */
	pid_t asker = start_reload(pid);
	assert_int_equal(fake_exit_status(pid), 0);
	assert_int_equal(fake_exit_status(asker), 3);
}

static void test_no_such_process_is_2(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(fake_exit_status(pid), 0);
	assert_int_equal(recv_reload_command(pid), 2);
}

static void test_plain_sighup_is_not_answered(void **state)
{
	(void)state;
	block_answers();
	pid_t pid = start_fake(FAKE_PLAIN);
	assert_int_equal(kill(pid, SIGHUP), 0);
	assert_int_equal(fake_exit_status(pid), 0);
	sigset_t pending;
	sigpending(&pending);
	assert_false(sigismember(&pending, RECV_RELOAD_ANSWER_SIGNAL));
}

/* Both answers sent before the asker looks (it was slow to run, as on a
 * loaded host): both wait for it, in order. */
static void test_answers_wait_for_a_slow_asker(void **state)
{
	(void)state;
	sigset_t answers = block_answers();
	pid_t pid = start_fake(FAKE_DONE);
	union sigval ask = {.sival_int = RECV_RELOAD_ASK};
	assert_int_equal(sigqueue(pid, SIGHUP, ask), 0);
	assert_int_equal(fake_exit_status(pid), 0); /* it answered both */
	struct timespec none = {0, 0};
	siginfo_t info;
	assert_int_equal(sigtimedwait(&answers, &info, &none),
			 RECV_RELOAD_ANSWER_SIGNAL);
	assert_int_equal(info.si_value.sival_int, RECV_RELOAD_TAKEN);
	assert_int_equal(sigtimedwait(&answers, &info, &none),
			 RECV_RELOAD_ANSWER_SIGNAL);
	assert_int_equal(info.si_value.sival_int, RECV_RELOAD_DONE);
}

static void test_silent_receiver_is_not_waited_for(void **state)
{
	(void)state;
	pid_t pid = start_fake(FAKE_SILENT);
	pid_t asker = start_reload(pid);
	/* the receiver reloaded and goes on (it is gone here, as a zombie
	 * it is still a process): the asker gives up its wait with 0 */
	assert_int_equal(fake_exit_status(asker), 0);
	assert_int_equal(fake_exit_status(pid), 0);
}

int main(void)
{
	alarm(60); /* a wait that never ends fails the test */
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_done_after_the_reload),
	    cmocka_unit_test(test_kept_configuration_is_2),
	    cmocka_unit_test(test_receiver_ended_first_is_3),
	    cmocka_unit_test(test_no_such_process_is_2),
	    cmocka_unit_test(test_plain_sighup_is_not_answered),
	    cmocka_unit_test(test_answers_wait_for_a_slow_asker),
	    cmocka_unit_test(test_silent_receiver_is_not_waited_for),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
