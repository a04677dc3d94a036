/* Requests answered at once (service/answering.c): the busy hint is how
 * long the logs' threads take to work through the requests waiting now
 * (waiting times what one costs, over the threads), 100 ms at least and
 * 5 s at most, spread by up to half as much again; a request its log's
 * thread has not taken within RECV_ANSWER_MS is refused with that hint.
 * The logs' workers are recorded, not real: the test links with
 * --wrap=recv_log_worker_answer_late. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "service/internal.h"

#include <limits.h>
#include <stdlib.h>

#define MS 1000000ull
#define DRAWS 2000

/* ---- the logs' workers, as answer_late finds them ---- */

#define CALLS_MAX 8

static struct {
	struct recv_log_worker *w;
	uint64_t before_ns;
	uint16_t retry_ms;
} calls[CALLS_MAX];
static unsigned ncalls;

unsigned __wrap_recv_log_worker_answer_late(struct recv_log_worker *w,
					    uint64_t before_ns,
					    uint16_t retry_ms);
unsigned __wrap_recv_log_worker_answer_late(struct recv_log_worker *w,
					    uint64_t before_ns,
					    uint16_t retry_ms)
{
	assert_true(ncalls < CALLS_MAX);
	calls[ncalls].w = w;
	calls[ncalls].before_ns = before_ns;
	calls[ncalls].retry_ms = retry_ms;
	ncalls++;
	return 0;
}

/* ---- a service with its threads and counters ---- */

struct fixture {
	struct service svc;
	struct served_log logs[3];
};

static struct fixture *with_threads(unsigned n)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct rs_error err = {0};
	assert_non_null(f);
	assert_int_equal(recv_threads_start(n, false, &f->svc.threads, &err),
			 0);
	ncalls = 0;
	srandom(7); /* the same draws each run */
	return f;
}

static void done(struct fixture *f)
{
	recv_threads_stop(&f->svc.threads);
	free(f);
}

static void counters(struct fixture *f, unsigned waiting, unsigned admit_us)
{
	atomic_store(&f->svc.counters.waiting, waiting);
	atomic_store(&f->svc.counters.admit_us, admit_us);
}

/* Many draws' hints lie in [least, most], and spread over it: the least
 * drawn is near least and the most near most. */
static void hints_spread(const struct fixture *f, unsigned least, unsigned most)
{
	unsigned lo = UINT_MAX, hi = 0, near = (most - least) / 10;
	for (unsigned i = 0; i < DRAWS; i++) {
		unsigned ms = recv_service_busy_retry_ms(&f->svc);
		lo = ms < lo ? ms : lo;
		hi = ms > hi ? ms : hi;
	}
	assert_in_range(lo, least, least + near);
	assert_in_range(hi, most - near, most);
}

/* Nothing waiting, or nothing known of the cost: ask again in 100 ms to
 * 150 ms, spread over all of it (senders told together come back apart). */
static void an_idle_service_hints_a_tenth_of_a_second(void **state)
{
	(void)state;
	struct fixture *f = with_threads(2);
	hints_spread(f, 100, 150);
	counters(f, 1000, 0); /* no request taken yet: no cost known */
	hints_spread(f, 100, 150);
	done(f);
}

/* 40 waiting at 10 ms each on 2 threads: 200 ms of work, spread to 300;
 * on 1 thread twice that. */
static void the_hint_is_the_work_waiting_over_the_threads(void **state)
{
	(void)state;
	struct fixture *f = with_threads(2);
	counters(f, 40, 10000);
	hints_spread(f, 200, 300);
	done(f);
	f = with_threads(1);
	counters(f, 40, 10000);
	hints_spread(f, 400, 600);
	done(f);
}

/* A flood is told 5 s at most, however large the counters (their
 * product does not wrap). */
static void a_flood_is_told_five_seconds_at_most(void **state)
{
	(void)state;
	struct fixture *f = with_threads(2);
	counters(f, 1000, 10000); /* 5 s of work: no room to spread */
	hints_spread(f, 5000, 5000);
	counters(f, 800, 10000); /* 4 s, spread up to the cap */
	hints_spread(f, 4000, 5000);
	counters(f, UINT_MAX, UINT_MAX);
	hints_spread(f, 5000, 5000);
	done(f);
}

/* With no request waiting, or before RECV_ANSWER_MS has passed on the
 * clock, no log is asked to refuse anything. */
static void nothing_is_refused_while_nothing_waits(void **state)
{
	(void)state;
	struct fixture *f = with_threads(1);
	f->svc.logs = &f->logs[0];
	recv_service_answer_late(&f->svc, 3600000 * MS);
	assert_int_equal(ncalls, 0);
	counters(f, 5, 1000);
	recv_service_answer_late(&f->svc, RECV_ANSWER_MS * MS - 1);
	assert_int_equal(ncalls, 0);
	done(f);
}

/* A request waiting: every log's worker refuses what was handed to it
 * more than RECV_ANSWER_MS ago, each with a hint drawn for it. */
static void every_log_refuses_what_waited_too_long(void **state)
{
	(void)state;
	struct fixture *f = with_threads(2);
	struct recv_log_worker *w[3];
	for (unsigned i = 0; i < 3; i++) {
		w[i] = (struct recv_log_worker *)&f->logs[i]; /* a name only */
		f->logs[i].worker = w[i];
		f->logs[i].next = i < 2 ? &f->logs[i + 1] : NULL;
	}
	f->svc.logs = &f->logs[0];
	counters(f, 40, 10000);
	uint64_t now = 10000 * MS;
	recv_service_answer_late(&f->svc, now);
	assert_int_equal(ncalls, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_ptr_equal(calls[i].w, w[i]);
		assert_int_equal(calls[i].before_ns, now - RECV_ANSWER_MS * MS);
		assert_in_range(calls[i].retry_ms, 200, 300);
	}
	/* right at RECV_ANSWER_MS: what was handed over at 0 */
	ncalls = 0;
	f->svc.logs = &f->logs[2];
	recv_service_answer_late(&f->svc, RECV_ANSWER_MS * MS);
	assert_int_equal(ncalls, 1);
	assert_int_equal(calls[0].before_ns, 0);
	done(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(an_idle_service_hints_a_tenth_of_a_second),
	    cmocka_unit_test(the_hint_is_the_work_waiting_over_the_threads),
	    cmocka_unit_test(a_flood_is_told_five_seconds_at_most),
	    cmocka_unit_test(nothing_is_refused_while_nothing_waits),
	    cmocka_unit_test(every_log_refuses_what_waited_too_long),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
