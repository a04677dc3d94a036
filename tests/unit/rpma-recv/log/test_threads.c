/* The threads that serve the logs (src/rpma-recv/log/threads.c), over
 * fake logs: this file is the other side of log/worker_run.h (threads.c
 * holds a log only through it), each fake log two eventfds that stand for
 * its inbox and its sessions. Logs spread over the threads by how many
 * each serves; a descriptor that speaks gets its log a turn, a request
 * gets admitted, a log that finds work gets turns until it has none;
 * timers run when due; a log that is over is let go of and finished, and
 * its thread counts it no more; stopping finishes what is left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "log/threads.h"
#include "log/worker_run.h"
#include "metrics/clock.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* A fake log: what its thread did with it. The thread writes, the test
 * reads: atomics. */
struct recv_log_worker {
	int inbox_fd, session_fd;
	atomic_int epfd; /* of the thread that took it, -1 before */
	atomic_uint admits, turns, timer_runs;
	atomic_uint work_left;		/* turns that still find work */
	atomic_uint_fast64_t due_in_ns; /* its timers' next, from now */
	atomic_uint_fast64_t due_ns;
	atomic_bool over, finished;
};

static void drain(int fd)
{
	uint64_t n;
	(void)!read(fd, &n, sizeof(n));
}

static void poke(int fd)
{
	uint64_t one = 1;
	assert_int_equal(write(fd, &one, sizeof(one)), sizeof(one));
}

/* ---- log/worker_run.h, faked ---- */

void recv_log_worker_attach(struct recv_log_worker *w, int epfd, void *owner,
			    void *inbox_owner, const struct rs_stall *stall)
{
	(void)stall;
	struct epoll_event in = {.events = EPOLLIN, .data.ptr = inbox_owner};
	struct epoll_event ses = {.events = EPOLLIN, .data.ptr = owner};
	assert_int_equal(epoll_ctl(epfd, EPOLL_CTL_ADD, w->inbox_fd, &in), 0);
	assert_int_equal(epoll_ctl(epfd, EPOLL_CTL_ADD, w->session_fd, &ses),
			 0);
	atomic_store(&w->epfd, epfd);
}

void recv_log_worker_admit(struct recv_log_worker *w)
{
	drain(w->inbox_fd);
	atomic_fetch_add(&w->admits, 1);
}

bool recv_log_worker_turn(struct recv_log_worker *w, uint64_t now_ns)
{
	(void)now_ns;
	drain(w->session_fd);
	atomic_fetch_add(&w->turns, 1);
	unsigned left = atomic_load(&w->work_left);
	return left &&
	       atomic_compare_exchange_strong(&w->work_left, &left, left - 1);
}

uint64_t recv_log_worker_timers(struct recv_log_worker *w, uint64_t now_ns)
{
	atomic_fetch_add(&w->timer_runs, 1);
	atomic_store(&w->due_ns, now_ns + atomic_load(&w->due_in_ns));
	return atomic_load(&w->due_ns);
}

uint64_t recv_log_worker_timers_due(const struct recv_log_worker *w)
{
	return atomic_load(&w->due_ns);
}

bool recv_log_worker_serving(const struct recv_log_worker *w)
{
	(void)w;
	return false;
}

bool recv_log_worker_spins(const struct recv_log_worker *w)
{
	(void)w;
	return false;
}

bool recv_log_worker_poll(struct recv_log_worker *w)
{
	(void)w;
	return false;
}

bool recv_log_worker_over(const struct recv_log_worker *w)
{
	return atomic_load(&w->over);
}

/* As the real one, it takes its descriptors out of its thread's set. */
void recv_log_worker_finish(struct recv_log_worker *w)
{
	int epfd = atomic_load(&w->epfd);
	epoll_ctl(epfd, EPOLL_CTL_DEL, w->inbox_fd, 0);
	epoll_ctl(epfd, EPOLL_CTL_DEL, w->session_fd, 0);
	atomic_store(&w->finished, true);
}

/* ---- the tests ---- */

#define LOGS 4

struct fixture {
	struct recv_threads *threads;
	struct recv_log_worker logs[LOGS];
};

static int setup(void **state)
{
	struct fixture *x = test_calloc(1, sizeof(*x));
	for (int i = 0; i < LOGS; i++) {
		struct recv_log_worker *w = &x->logs[i];
		w->inbox_fd = eventfd(0, EFD_NONBLOCK);
		w->session_fd = eventfd(0, EFD_NONBLOCK);
		atomic_store(&w->epfd, -1);
		/* no timer due for long: turns come from descriptors */
		atomic_store(&w->due_in_ns, 3600ull * 1000000000ull);
		atomic_store(&w->due_ns, UINT64_MAX);
	}
	struct rs_error err = {0};
	assert_int_equal(recv_threads_start(2, false, &x->threads, &err), 0);
	assert_int_equal(recv_threads_count(x->threads), 2);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	for (int i = 0; i < LOGS; i++)
		atomic_store(&x->logs[i].over, true);
	recv_threads_stop(&x->threads);
	for (int i = 0; i < LOGS; i++) {
		close(x->logs[i].inbox_fd);
		close(x->logs[i].session_fd);
	}
	test_free(x);
	return 0;
}

/* Waits (5 s at most) until *v reaches at least want. */
static bool reaches(atomic_uint *v, unsigned want)
{
	for (int i = 0; i < 5000 && atomic_load(v) < want; i++)
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, 0);
	return atomic_load(v) >= want;
}

static bool becomes_true(atomic_bool *v)
{
	for (int i = 0; i < 5000 && !atomic_load(v); i++)
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, 0);
	return atomic_load(v);
}

static void attach(struct fixture *x, int i)
{
	assert_int_equal(recv_threads_attach(x->threads, &x->logs[i]), 0);
	/* taken: its first turn (every log's, on arrival) */
	assert_true(reaches(&x->logs[i].turns, 1));
}

static void logs_spread_over_the_threads(void **state)
{
	struct fixture *x = *state;
	for (int i = 0; i < LOGS; i++)
		attach(x, i);
	int first = atomic_load(&x->logs[0].epfd), on_first = 0;
	for (int i = 0; i < LOGS; i++)
		on_first += atomic_load(&x->logs[i].epfd) == first;
	assert_int_equal(on_first, LOGS / 2);
}

static void a_descriptor_that_speaks_gets_its_log_a_turn(void **state)
{
	struct fixture *x = *state;
	attach(x, 0);
	attach(x, 1);
	unsigned other = atomic_load(&x->logs[1].turns);
	poke(x->logs[0].session_fd);
	assert_true(reaches(&x->logs[0].turns, 2));
	poke(x->logs[0].session_fd);
	assert_true(reaches(&x->logs[0].turns, 3));
	assert_int_equal(atomic_load(&x->logs[1].turns), other);
	assert_int_equal(atomic_load(&x->logs[0].admits), 0);
}

static void a_request_is_admitted(void **state)
{
	struct fixture *x = *state;
	attach(x, 0);
	poke(x->logs[0].inbox_fd);
	assert_true(reaches(&x->logs[0].admits, 1));
}

/* A turn that found work is followed by another, with no descriptor
 * speaking, until one finds none. */
static void a_log_with_work_gets_turns_until_it_has_none(void **state)
{
	struct fixture *x = *state;
	attach(x, 0);
	atomic_store(&x->logs[0].work_left, 5);
	poke(x->logs[0].session_fd);
	assert_true(reaches(&x->logs[0].turns, 7)); /* 1 + 5 + the last */
	assert_int_equal(atomic_load(&x->logs[0].work_left), 0);
}

static void timers_run_when_due(void **state)
{
	struct fixture *x = *state;
	atomic_store(&x->logs[0].due_in_ns, 10 * 1000000ull);
	atomic_store(&x->logs[0].due_ns, 0);
	attach(x, 0);
	assert_true(reaches(&x->logs[0].timer_runs, 5));
}

/* An over log is finished and no longer counted: the next log goes to
 * its thread, which now serves the fewest. */
static void an_over_log_is_let_go_of(void **state)
{
	struct fixture *x = *state;
	attach(x, 0);
	attach(x, 1);
	int freed = atomic_load(&x->logs[0].epfd);
	atomic_store(&x->logs[0].over, true);
	poke(x->logs[0].session_fd);
	assert_true(becomes_true(&x->logs[0].finished));
	unsigned turns = atomic_load(&x->logs[0].turns);
	attach(x, 2);
	assert_int_equal(atomic_load(&x->logs[2].epfd), freed);
	poke(x->logs[0].session_fd); /* no longer its thread's */
	poke(x->logs[2].session_fd);
	assert_true(reaches(&x->logs[2].turns, 2));
	assert_int_equal(atomic_load(&x->logs[0].turns), turns);
}

/* What waits in an over log's inbox is not admitted: its finish refuses
 * it. */
static void an_over_log_admits_nothing(void **state)
{
	struct fixture *x = *state;
	attach(x, 0);
	atomic_store(&x->logs[0].over, true);
	poke(x->logs[0].inbox_fd);
	assert_true(becomes_true(&x->logs[0].finished));
	assert_int_equal(atomic_load(&x->logs[0].admits), 0);
}

static void stopping_finishes_every_log_left(void **state)
{
	struct fixture *x = *state;
	attach(x, 0);
	attach(x, 1);
	recv_threads_stop(&x->threads);
	assert_null(x->threads);
	assert_true(atomic_load(&x->logs[0].finished));
	assert_true(atomic_load(&x->logs[1].finished));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(logs_spread_over_the_threads, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		a_descriptor_that_speaks_gets_its_log_a_turn, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_request_is_admitted, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		a_log_with_work_gets_turns_until_it_has_none, setup, teardown),
	    cmocka_unit_test_setup_teardown(timers_run_when_due, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(an_over_log_is_let_go_of, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(an_over_log_admits_nothing, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(stopping_finishes_every_log_left,
					    setup, teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
