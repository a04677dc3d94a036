/* The sender's liveness rule (replicas/liveness.h): a receiver that
 * answers late is there, one whose link does not even answer a probe is
 * gone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "replicas/liveness.h"

#define MS 1000000ull
#define TIMEOUT (10000 * MS)

static enum send_liveness_verdict at(const struct send_liveness *l,
				     uint64_t waiting, uint64_t now)
{
	uint64_t silent = 0;
	return send_liveness_check(l, waiting, now, TIMEOUT, &silent);
}

static void nothing_owed_is_never_a_loss(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	assert_int_equal(at(&l, 0, 100000 * MS), SEND_LIVE);
}

static void silence_for_half_the_timeout_asks_for_a_probe(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	assert_int_equal(at(&l, 1000 * MS, 5999 * MS), SEND_LIVE);
	assert_int_equal(at(&l, 1000 * MS, 6000 * MS), SEND_PROBE);
}

/* A commit unanswered for far longer than the timeout, on a link whose
 * probes keep being answered: a slow receiver, not a gone one. */
static void probes_answered_late_are_answers(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	uint64_t posted = 1000 * MS, now = 6000 * MS;
	for (int round = 0; round < 10; round++) {
		assert_int_equal(at(&l, posted, now), SEND_PROBE);
		send_liveness_probed(&l, now);
		/* answered just before its half timeout ran out */
		now += 4900 * MS;
		assert_int_equal(at(&l, posted, now), SEND_LIVE);
		send_liveness_heard(&l, now);
		now += 5000 * MS;
	}
	assert_true(now - posted > 9 * TIMEOUT);
}

static void an_unanswered_probe_means_gone(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	assert_int_equal(at(&l, 1000 * MS, 6000 * MS), SEND_PROBE);
	send_liveness_probed(&l, 6000 * MS);
	assert_int_equal(at(&l, 1000 * MS, 10999 * MS), SEND_LIVE);
	uint64_t silent = 0;
	assert_int_equal(
	    send_liveness_check(&l, 1000 * MS, 11000 * MS, TIMEOUT, &silent),
	    SEND_GONE);
	assert_int_equal(silent, 10000 * MS);
}

/* A reply to something else counts: the wait is from the last word. */
static void any_word_restarts_the_wait(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	send_liveness_heard(&l, 4000 * MS);
	assert_int_equal(at(&l, 1000 * MS, 8999 * MS), SEND_LIVE);
	assert_int_equal(at(&l, 1000 * MS, 9000 * MS), SEND_PROBE);
	/* a word that comes while a probe is out clears it */
	send_liveness_probed(&l, 9000 * MS);
	send_liveness_heard(&l, 9500 * MS);
	assert_int_equal(at(&l, 1000 * MS, 14500 * MS), SEND_PROBE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(nothing_owed_is_never_a_loss),
	    cmocka_unit_test(silence_for_half_the_timeout_asks_for_a_probe),
	    cmocka_unit_test(probes_answered_late_are_answers),
	    cmocka_unit_test(an_unanswered_probe_means_gone),
	    cmocka_unit_test(any_word_restarts_the_wait),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
