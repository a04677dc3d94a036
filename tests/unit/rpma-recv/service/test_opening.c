/* The logs a receiver still has to open (service/opening.c): they open in
 * the configuration's order, one at a time on the opener's thread
 * (service/opener.c) while the loop goes on answering; a log a sender asks
 * for moves to the front and opens next, and the hint the sender is given
 * shrinks with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "service/internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NLOGS 100

struct fixture {
	struct recv_log_settings logs[NLOGS];
	struct service svc;
	int release[2]; /* a byte each lets one slow open end */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	for (unsigned i = 0; i < NLOGS; i++) {
		snprintf(f->logs[i].name, sizeof(f->logs[i].name), "l%u", i);
		/* none can be opened: the opens here are the failing ones */
		snprintf(f->logs[i].pool_path, sizeof(f->logs[i].pool_path),
			 "/nonexistent/l%u.pool", i);
	}
	f->svc.settings.logs = f->logs;
	f->svc.settings.nlogs = NLOGS;
	recv_service_pend(&f->svc);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	if (f->svc.opener) {
		close(f->release[1]); /* the open under way ends */
		struct recv_opened left[RECV_OPENER_DEPTH_MAX];
		recv_opener_stop(&f->svc.opener, left);
		close(f->release[0]);
	}
	recv_service_pending_free(&f->svc);
	free(f);
	return 0;
}

/* The names still to open, in the order they will open, from the first. */
static const char *nth_pending(const struct service *svc, unsigned n)
{
	const struct pending_log *p = svc->pending;
	while (p && n--)
		p = p->next;
	return p ? p->settings->name : "";
}

static void logs_open_in_the_configurations_order(void **state)
{
	struct fixture *f = *state;
	assert_string_equal(nth_pending(&f->svc, 0), "l0");
	assert_string_equal(nth_pending(&f->svc, 99), "l99");
}

static void the_log_asked_for_opens_next(void **state)
{
	struct fixture *f = *state;
	uint16_t before = recv_service_pending_ms(&f->svc, "l90");
	recv_service_pend_first(&f->svc, "l90");
	assert_string_equal(nth_pending(&f->svc, 0), "l90");
	assert_string_equal(nth_pending(&f->svc, 1), "l0");
	assert_string_equal(nth_pending(&f->svc, 90), "l89");
	assert_string_equal(nth_pending(&f->svc, 91), "l91");
	assert_string_equal(nth_pending(&f->svc, 99), "l99");
	/* 90 logs ahead of it at 10 ms each, then none */
	assert_int_equal(before, 910);
	assert_int_equal(recv_service_pending_ms(&f->svc, "l90"), 50);
}

/* Asked for in turn, they open in that order, whoever asks again: the
 * hint each sender got stays right. */
static void the_logs_asked_for_open_in_the_order_asked(void **state)
{
	struct fixture *f = *state;
	recv_service_pend_first(&f->svc, "l50");
	recv_service_pend_first(&f->svc, "l70");
	recv_service_pend_first(&f->svc, "l60");
	recv_service_pend_first(&f->svc, "l50");
	recv_service_pend_first(&f->svc, "l70");
	assert_string_equal(nth_pending(&f->svc, 0), "l50");
	assert_string_equal(nth_pending(&f->svc, 1), "l70");
	assert_string_equal(nth_pending(&f->svc, 2), "l60");
	assert_string_equal(nth_pending(&f->svc, 3), "l0");
	assert_string_equal(nth_pending(&f->svc, 52), "l49");
	assert_string_equal(nth_pending(&f->svc, 53), "l51");
	assert_string_equal(nth_pending(&f->svc, 99), "l99");
}

static void a_name_not_pending_changes_nothing(void **state)
{
	struct fixture *f = *state;
	recv_service_pend_first(&f->svc, "nosuch");
	recv_service_pend_first(&f->svc, "l0");
	assert_string_equal(nth_pending(&f->svc, 0), "l0");
	assert_string_equal(nth_pending(&f->svc, 1), "l1");
	assert_int_equal(recv_service_pending_ms(&f->svc, "nosuch"), 0);
}

/* The opener's open here: it waits until the test lets it end, then fails
 * as a pool that cannot be opened does. */
static int slow_failing_open(void *ctx, const struct recv_log_settings *s,
			     struct recv_log_worker **out, struct rs_error *err)
{
	struct fixture *f = ctx;
	char c;
	(void)!read(f->release[0], &c, 1);
	*out = NULL;
	return rs_error_set(err, RS_E_IO, ENOENT, "%s: no such pool",
			    s->pool_path);
}

static void start_openers(struct fixture *f, unsigned threads)
{
	struct rs_error err = {0};
	assert_int_equal(pipe(f->release), 0);
	assert_int_equal(recv_opener_start(slow_failing_open, f, threads,
					   &f->svc.opener, &err),
			 0);
}

static void start_opener(struct fixture *f)
{
	start_openers(f, 1);
}

/* Until the opener's descriptor says an open ended. */
static void wait_opened(struct fixture *f)
{
	struct pollfd p = {.fd = recv_opener_fd(f->svc.opener),
			   .events = POLLIN};
	assert_int_equal(poll(&p, 1, 10000), 1);
}

/* A pool that takes long to open holds no request: the loop's turns go
 * on meanwhile (a receiver under load took more than a sender's 5 s to
 * make one pool, and left every request unanswered that long). */
static void the_loop_goes_on_while_a_log_opens(void **state)
{
	struct fixture *f = *state;
	start_opener(f);
	assert_int_equal(recv_service_open_turn(&f->svc), 0);
	/* l0 opens, l1 is in hand for the next */
	assert_string_equal(recv_opener_busy_with(f->svc.opener)->name, "l0");
	assert_true(recv_opener_holds(f->svc.opener, "l1"));
	assert_string_equal(nth_pending(&f->svc, 0), "l2");
	/* l0's sender asks again at once (its next request is held while l0
	 * opens); l1's after l0's open so far, as long again */
	usleep(120 * 1000);
	assert_int_equal(recv_service_pending_ms(&f->svc, "l0"), 50);
	assert_int_equal(recv_service_pending_ms(&f->svc, ""), 50);
	assert_true(recv_service_pending_ms(&f->svc, "l1") >= 120);
	assert_false(recv_service_failed_to_open(&f->svc, "l0"));
	assert_false(recv_service_failed_to_open(&f->svc, "l1"));
	/* opening, in hand, waiting its turn; not configured */
	assert_true(recv_service_still_to_open(&f->svc, "l0"));
	assert_true(recv_service_still_to_open(&f->svc, "l1"));
	assert_true(recv_service_still_to_open(&f->svc, "l2"));
	assert_true(recv_service_still_to_open(&f->svc, ""));
	assert_false(recv_service_still_to_open(&f->svc, "nosuch"));
	recv_service_pend_first(&f->svc, "l42");
	assert_int_equal(recv_service_open_turn(&f->svc), 0);
	assert_int_equal(f->svc.opening, NLOGS);
	/* l0's open ends (failing): said and counted; l1 opens, l42 is in
	 * hand for the next */
	assert_int_equal(write(f->release[1], "x", 1), 1);
	wait_opened(f);
	assert_int_equal(recv_service_open_turn(&f->svc), 0);
	assert_int_equal(f->svc.failed, 1);
	assert_int_equal(f->svc.opening, NLOGS - 1);
	assert_true(recv_service_failed_to_open(&f->svc, "l0"));
	assert_false(recv_service_still_to_open(&f->svc, "l0"));
	assert_string_equal(recv_opener_busy_with(f->svc.opener)->name, "l1");
	assert_true(recv_opener_holds(f->svc.opener, "l42"));
	assert_string_equal(nth_pending(&f->svc, 0), "l2");
}

/* An open that ends goes on with the next log in hand without waiting
 * for the loop's turn (a busy loop took its time to hand the next one
 * over, a thousand times in a restart). */
static void the_next_open_does_not_wait_for_the_loop(void **state)
{
	struct fixture *f = *state;
	start_opener(f);
	assert_int_equal(recv_service_open_turn(&f->svc), 0);
	assert_int_equal(recv_opener_in_hand(f->svc.opener), 2);
	/* both opens end, no turn of the loop between them */
	assert_int_equal(write(f->release[1], "xx", 2), 2);
	struct recv_opened r[2];
	unsigned taken = 0;
	for (unsigned i = 0; i < 1000 && taken < 2; i++) {
		taken += recv_opener_take(f->svc.opener, &r[taken]);
		if (taken < 2)
			usleep(10000);
	}
	assert_int_equal(taken, 2);
	assert_string_equal(r[0].settings->name, "l0");
	assert_string_equal(r[1].settings->name, "l1");
	assert_int_equal(recv_opener_in_hand(f->svc.opener), 0);
	/* (opening still counts them: this test took them past the loop) */
	f->svc.opening -= 2;
}

/* Until the log of that name is being opened (10 s at most). */
static void wait_opening(struct fixture *f, const char *name)
{
	for (unsigned i = 0; i < 1000; i++) {
		if (recv_opener_opening(f->svc.opener, name))
			return;
		usleep(10000);
	}
	fail_msg("%s never opened", name);
}

/* With a thread per worker, as many logs open at once, each thread with
 * the next in hand: a restart's opens go as many times faster. */
static void logs_open_side_by_side(void **state)
{
	struct fixture *f = *state;
	start_openers(f, 2);
	assert_int_equal(recv_opener_depth(f->svc.opener), 4);
	assert_int_equal(recv_service_open_turn(&f->svc), 0);
	assert_int_equal(recv_opener_in_hand(f->svc.opener), 4);
	assert_string_equal(nth_pending(&f->svc, 0), "l4");
	wait_opening(f, "l0");
	wait_opening(f, "l1");
	assert_false(recv_opener_opening(f->svc.opener, "l2"));
	assert_true(recv_opener_holds(f->svc.opener, "l2"));
	/* both asked again at once, the next in hand after them */
	assert_int_equal(recv_service_pending_ms(&f->svc, "l0"), 50);
	assert_int_equal(recv_service_pending_ms(&f->svc, "l1"), 50);
	/* one open ends: its thread takes the oldest waiting, l2 */
	assert_int_equal(write(f->release[1], "x", 1), 1);
	wait_opened(f);
	wait_opening(f, "l2");
	assert_false(recv_opener_opening(f->svc.opener, "l3"));
	assert_int_equal(recv_service_open_turn(&f->svc), 0);
	assert_int_equal(f->svc.failed, 1);
	assert_int_equal(recv_opener_in_hand(f->svc.opener), 4);
	assert_string_equal(nth_pending(&f->svc, 0), "l5");
	/* the one that ended is l0 or l1; the other is still opening */
	bool l0 = recv_service_failed_to_open(&f->svc, "l0");
	assert_true(l0 != recv_service_failed_to_open(&f->svc, "l1"));
	assert_true(recv_opener_opening(f->svc.opener, l0 ? "l1" : "l0"));
}

/* Every log failed to open: nothing to serve, the last failure's code. */
static void no_log_opened_is_the_last_failure(void **state)
{
	struct fixture *f = *state;
	start_opener(f);
	int rc = 0;
	for (unsigned i = 0; i <= NLOGS && !rc; i++) {
		assert_int_equal(recv_service_open_turn(&f->svc), 0);
		assert_int_equal(write(f->release[1], "x", 1), 1);
		wait_opened(f);
		rc = recv_service_open_turn(&f->svc);
	}
	assert_int_equal(rc, RS_E_IO);
	assert_int_equal(f->svc.failed, NLOGS);
	assert_int_equal(f->svc.opening, 0);
	assert_true(f->svc.opened);
}

/* Settings as a reload builds them, then frees (clobbered here). */
static void add_as_a_reload_does(struct fixture *f, const char *name)
{
	struct recv_log_settings *s = calloc(1, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->pool_path, sizeof(s->pool_path), "/nonexistent/%s.pool",
		 name);
	assert_int_equal(recv_service_pend_added(&f->svc, s), 0);
	memset(s, 0xff, sizeof(*s));
	free(s);
}

/* A log a reload adds waits its turn after those pending, from its own
 * copy of its settings (a reload opened it on the loop, which answered
 * no request while the pool was made). */
static void a_log_a_reload_adds_opens_after_the_others(void **state)
{
	struct fixture *f = *state;
	add_as_a_reload_does(f, "added");
	assert_int_equal(f->svc.opening, NLOGS + 1);
	assert_string_equal(nth_pending(&f->svc, NLOGS), "added");
	assert_true(recv_service_pending_ms(&f->svc, "added") >= 50);
	recv_service_pend_first(&f->svc, "added");
	assert_string_equal(nth_pending(&f->svc, 0), "added");
}

/* Added once every log is open: it opens on the opener's thread, its
 * copy kept until its result is taken, the pace counted afresh. */
static void a_log_added_later_opens_on_the_opener(void **state)
{
	struct fixture *f = *state;
	start_opener(f);
	while (f->svc.opening) {
		recv_service_open_turn(&f->svc);
		assert_int_equal(write(f->release[1], "x", 1), 1);
		wait_opened(f);
		recv_service_open_turn(&f->svc);
	}
	assert_int_equal(f->svc.failed, NLOGS);
	add_as_a_reload_does(f, "later");
	assert_int_equal(f->svc.opened_since, 0);
	assert_int_equal(recv_service_open_turn(&f->svc), 0);
	assert_string_equal(recv_opener_busy_with(f->svc.opener)->name,
			    "later");
	assert_non_null(f->svc.handed);
	assert_int_equal(write(f->release[1], "x", 1), 1);
	wait_opened(f);
	assert_int_equal(recv_service_open_turn(&f->svc), RS_E_IO);
	assert_int_equal(f->svc.failed, NLOGS + 1);
	assert_int_equal(f->svc.opening, 0);
	assert_int_equal(f->svc.opened_since, 1);
	assert_null(f->svc.handed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		logs_open_in_the_configurations_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(the_log_asked_for_opens_next, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		the_logs_asked_for_open_in_the_order_asked, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_name_not_pending_changes_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(the_loop_goes_on_while_a_log_opens,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		the_next_open_does_not_wait_for_the_loop, setup, teardown),
	    cmocka_unit_test_setup_teardown(logs_open_side_by_side, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(no_log_opened_is_the_last_failure,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_log_a_reload_adds_opens_after_the_others, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_log_added_later_opens_on_the_opener, setup, teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
