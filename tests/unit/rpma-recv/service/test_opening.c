/* The logs a receiver still has to open (service/opening.c): they open in
 * the configuration's order, but a log a sender asks for opens for it at
 * once within the turn's time for that, else moves to the front and opens
 * next, and the hint the sender is given shrinks with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "service/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NLOGS 100

struct fixture {
	struct recv_log_settings logs[NLOGS];
	struct service svc;
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
	while (f->svc.pending) {
		struct pending_log *p = f->svc.pending;
		f->svc.pending = p->next;
		free(p);
	}
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

static void two_asked_open_the_last_asked_first(void **state)
{
	struct fixture *f = *state;
	recv_service_pend_first(&f->svc, "l50");
	recv_service_pend_first(&f->svc, "l70");
	assert_string_equal(nth_pending(&f->svc, 0), "l70");
	assert_string_equal(nth_pending(&f->svc, 1), "l50");
	assert_string_equal(nth_pending(&f->svc, 2), "l0");
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

static void a_log_asked_for_is_opened_at_once_within_the_turn(void **state)
{
	struct fixture *f = *state;
	f->svc.asked_opens_until_ns = UINT64_MAX;
	/* tried now, out of its place in the queue: here it cannot be */
	assert_int_equal(recv_service_open_asked(&f->svc, "l42"),
			 RECV_ASKED_FAILED);
	assert_string_equal(nth_pending(&f->svc, 41), "l41");
	assert_string_equal(nth_pending(&f->svc, 42), "l43");
	assert_int_equal(f->svc.opening, NLOGS - 1);
	assert_int_equal(f->svc.failed, 1);
	assert_true(recv_service_failed_to_open(&f->svc, "l42"));
	assert_false(recv_service_failed_to_open(&f->svc, "l41"));
	assert_false(recv_service_failed_to_open(&f->svc, "nosuch"));
	/* no longer to open: a second ask opens nothing */
	assert_int_equal(recv_service_open_asked(&f->svc, "l42"),
			 RECV_ASKED_LATER);
	assert_int_equal(f->svc.failed, 1);
}

static void past_the_turns_time_a_log_asked_for_waits(void **state)
{
	struct fixture *f = *state;
	f->svc.asked_opens_until_ns = 0;
	assert_int_equal(recv_service_open_asked(&f->svc, "l42"),
			 RECV_ASKED_LATER);
	assert_int_equal(f->svc.opening, NLOGS);
	assert_string_equal(nth_pending(&f->svc, 42), "l42");
	assert_false(recv_service_failed_to_open(&f->svc, "l42"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		logs_open_in_the_configurations_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(the_log_asked_for_opens_next, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(two_asked_open_the_last_asked_first,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_name_not_pending_changes_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_log_asked_for_is_opened_at_once_within_the_turn, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		past_the_turns_time_a_log_asked_for_waits, setup, teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
