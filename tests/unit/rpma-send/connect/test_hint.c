/* Which refusals say when to ask again (connect/hint.h): the sender waits
 * them out without counting them against --retry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "connect/hint.h"
#include "error.h"

static const char *hint(int rc, uint8_t reason, uint16_t retry_ms)
{
	struct rs_reject_info r = {.reason = reason, .retry_ms = retry_ms};
	return send_hint_of(rc, &r);
}

static void a_full_receiver_that_says_when_is_waited_out(void **state)
{
	(void)state;
	assert_non_null(hint(RS_E_BUSY, RS_REJECT_LIMIT, 250));
	/* an older receiver says no time: --retry's */
	assert_null(hint(RS_E_BUSY, RS_REJECT_LIMIT, 0));
}

static void starting_and_busy_are_waited_out(void **state)
{
	(void)state;
	assert_non_null(hint(RS_E_BUSY, RS_REJECT_STARTING, 0));
	assert_non_null(hint(RS_E_BUSY, RS_REJECT_BUSY, 100));
	/* a log another sender writes says no time */
	assert_null(hint(RS_E_BUSY, RS_REJECT_BUSY, 0));
}

static void other_refusals_are_not(void **state)
{
	(void)state;
	assert_null(hint(RS_E_REJECTED, RS_REJECT_NO_SUCH_LOG, 100));
	assert_null(hint(RS_E_REJECTED, RS_REJECT_METHOD, 100));
	assert_null(hint(RS_E_UNREACHABLE, RS_REJECT_LIMIT, 100));
}

/* Each hinted refusal is asked again after its hint (100 ms when it
 * names none), until two minutes by the clock from the first: then it is
 * a refusal like any other. A refusal with no time ends the waits at once.
 */
static void hinted_waits_last_two_minutes(void **state)
{
	(void)state;
	struct send_hint_wait w = {0};
	struct rs_reject_info busy = {.reason = RS_REJECT_BUSY,
				      .retry_ms = 250};
	struct rs_reject_info starting = {.reason = RS_REJECT_STARTING};
	uint64_t now = 5000000000ull;
	assert_true(send_hint_wait_next(&w, RS_E_BUSY, &starting, now));
	assert_int_equal(w.next_ms, 100);
	unsigned asked = 1;
	now += 100 * 1000000ull;
	while (send_hint_wait_next(&w, RS_E_BUSY, &busy, now)) {
		assert_int_equal(w.next_ms, 250);
		asked++;
		now += 250 * 1000000ull;
	}
	assert_int_equal(w.next_ms, 0);
	assert_int_equal(asked, 1 + (SEND_HINTED_WAIT_MS - 100 + 249) / 250);
	assert_true(w.waited_ms >= SEND_HINTED_WAIT_MS);

	struct send_hint_wait fresh = {.next_ms = 7};
	struct rs_reject_info taken = {.reason = RS_REJECT_BUSY};
	assert_false(send_hint_wait_next(&fresh, RS_E_BUSY, &taken, now));
	assert_int_equal(fresh.next_ms, 0);
	assert_int_equal(fresh.waited_ms, 0);
}

/* The attempts' own time counts: a receiver that takes 10 s to answer
 * each request (one that restarts, or a host short of CPU) is asked again
 * for two minutes in all, not for two minutes of hints between 10-s
 * attempts (which came to 40 minutes). */
static void slow_answers_count_against_the_two_minutes(void **state)
{
	(void)state;
	struct send_hint_wait w = {0};
	struct rs_reject_info starting = {.reason = RS_REJECT_STARTING,
					  .retry_ms = 500};
	uint64_t now = 1;
	unsigned asked = 0;
	while (send_hint_wait_next(&w, RS_E_BUSY, &starting, now)) {
		asked++;
		now += (w.next_ms + 10000) * 1000000ull;
	}
	assert_int_equal(asked, (SEND_HINTED_WAIT_MS + 10499) / 10500);
	assert_true(now - 1 < (SEND_HINTED_WAIT_MS + 2 * 10500) * 1000000ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_full_receiver_that_says_when_is_waited_out),
	    cmocka_unit_test(starting_and_busy_are_waited_out),
	    cmocka_unit_test(other_refusals_are_not),
	    cmocka_unit_test(hinted_waits_last_two_minutes),
	    cmocka_unit_test(slow_answers_count_against_the_two_minutes),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
