/* The seats max-senders counts (log/seats.h): a request below the cap
 * gets one, at the cap none, whatever flag it carries; a takeover with the
 * writer's token takes the old session's seat, never a second; a session
 * that ends gives its seat back at once, once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "log/seats.h"

static void requests_take_seats_up_to_the_cap(void **state)
{
	(void)state;
	atomic_uint taken = 0;
	for (int i = 0; i < 3; i++)
		assert_int_equal(recv_seats_claim(&taken, 3, false),
				 RECV_SEAT_TAKEN);
	assert_int_equal(recv_seats_claim(&taken, 3, false), RECV_SEAT_NONE);
	assert_int_equal(atomic_load(&taken), 3);
}

/* A made-up token, or a stale one, is not the writer's: at the cap such
 * a "takeover" is refused like any request. */
static void the_cap_holds_for_a_takeover_without_the_held_token(void **state)
{
	(void)state;
	atomic_uint taken = 2;
	assert_int_equal(recv_seats_claim(&taken, 2, false), RECV_SEAT_NONE);
	assert_int_equal(recv_seats_claim(&taken, 2, true), RECV_SEAT_PASSED);
	assert_int_equal(atomic_load(&taken), 2);
}

/* A sender that loses its link again and again and takes its session
 * over each time holds one seat all along. */
static void takeovers_pass_the_seat_on(void **state)
{
	(void)state;
	atomic_uint taken = 0;
	struct recv_seat old, next;
	recv_seat_hold(&old, recv_seats_claim(&taken, 1, false));
	for (int i = 0; i < 100; i++) {
		recv_seat_hold(&next, recv_seats_claim(&taken, 1, true));
		assert_false(next.held);
		recv_seat_pass(&taken, &old, &next);
		assert_false(recv_seat_release(&taken, &old)); /* it ends */
		assert_int_equal(atomic_load(&taken), 1);
		old = next;
	}
	assert_true(recv_seat_release(&taken, &old));
	assert_int_equal(atomic_load(&taken), 0);
}

/* The session to take over ended before its takeover was admitted (its
 * seat was free at once): the newcomer takes a seat of its own. */
static void a_takeover_of_a_session_gone_takes_its_own_seat(void **state)
{
	(void)state;
	atomic_uint taken = 0;
	struct recv_seat old, next;
	recv_seat_hold(&old, recv_seats_claim(&taken, 1, false));
	recv_seat_hold(&next, recv_seats_claim(&taken, 1, true));
	assert_true(recv_seat_release(&taken, &old));
	assert_int_equal(atomic_load(&taken), 0);
	recv_seat_take(&taken, &next);
	recv_seat_take(&taken, &next); /* once */
	assert_int_equal(atomic_load(&taken), 1);
	/* and a request below the cap is never refused meanwhile */
	assert_int_equal(recv_seats_claim(&taken, 2, false), RECV_SEAT_TAKEN);
}

static void a_refused_request_gives_its_seat_back_once(void **state)
{
	(void)state;
	atomic_uint taken = 0;
	struct recv_seat s;
	recv_seat_hold(&s, recv_seats_claim(&taken, 4, false));
	assert_true(recv_seat_release(&taken, &s));
	assert_false(recv_seat_release(&taken, &s));
	assert_int_equal(atomic_load(&taken), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(requests_take_seats_up_to_the_cap),
	    cmocka_unit_test(
		the_cap_holds_for_a_takeover_without_the_held_token),
	    cmocka_unit_test(takeovers_pass_the_seat_on),
	    cmocka_unit_test(a_takeover_of_a_session_gone_takes_its_own_seat),
	    cmocka_unit_test(a_refused_request_gives_its_seat_back_once),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
