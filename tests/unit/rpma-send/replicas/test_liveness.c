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
	return send_liveness_check(l, waiting, now, TIMEOUT, 0, &silent);
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
 * probes come back late, just before their half of the timeout runs out:
 * a slow link, not a gone one; the program's answer comes 15 s after the
 * first probe proved the commit had reached its adapter (within twice the
 * timeout). */
static void probes_answered_late_are_answers(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	uint64_t posted = 1000 * MS, now = 6000 * MS;
	for (int round = 0; round < 2; round++) {
		assert_int_equal(at(&l, posted, now), SEND_PROBE);
		send_liveness_probed(&l, now);
		now += 4900 * MS;
		assert_int_equal(at(&l, posted, now), SEND_LIVE);
		send_liveness_probe_back(&l, now);
		now += 5000 * MS;
	}
	/* the first probe came back at 10.9 s; the answer at 25.8 s */
	assert_int_equal(at(&l, posted, now), SEND_PROBE);
	send_liveness_answered(&l, now);
	assert_int_equal(at(&l, 0, now), SEND_LIVE);
	assert_true(now - posted > 2 * TIMEOUT);
}

/* Probes come back at once and the program says nothing: everything
 * reached its adapter, so twice the timeout after the first probe came
 * back, its receiver is not serving (stopped, hung). */
static void a_silent_program_behind_a_live_adapter_is_hung(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	uint64_t posted = 1000 * MS, now = 6000 * MS;
	uint64_t first_back = now + 10 * MS;
	while (now < first_back + 2 * TIMEOUT) {
		enum send_liveness_verdict v = at(&l, posted, now);
		assert_true(v == SEND_PROBE || v == SEND_LIVE);
		if (v == SEND_PROBE) {
			send_liveness_probed(&l, now);
			send_liveness_probe_back(&l, now + 10 * MS);
		}
		now += 500 * MS;
	}
	uint64_t silent = 0;
	assert_int_equal(send_liveness_check(&l, posted,
					     first_back + 2 * TIMEOUT, TIMEOUT,
					     0, &silent),
			 SEND_HUNG);
	assert_int_equal(silent, first_back + 2 * TIMEOUT - posted);
	/* a message from the program ends it */
	send_liveness_answered(&l, first_back + 2 * TIMEOUT);
	assert_int_equal(
	    at(&l, first_back + 2 * TIMEOUT, first_back + 2 * TIMEOUT),
	    SEND_LIVE);
}

/* What was sent after the probe that came back was not proven to reach
 * the adapter by it: only a later probe's return counts for it. */
static void a_probe_proves_only_what_went_before_it(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	send_liveness_probed(&l, 6000 * MS);
	send_liveness_probe_back(&l, 6010 * MS);
	/* a keepalive sent after that probe, the link silent since */
	assert_int_not_equal(at(&l, 7000 * MS, 30000 * MS), SEND_HUNG);
	send_liveness_probed(&l, 30000 * MS);
	send_liveness_probe_back(&l, 30010 * MS);
	assert_int_not_equal(at(&l, 7000 * MS, 50009 * MS), SEND_HUNG);
	assert_int_equal(at(&l, 7000 * MS, 50010 * MS), SEND_HUNG);
}

/* An idle link's keepalives (probes) come back all the time; then a
 * commit goes to a receiver whose program has stopped: twice the timeout
 * after the first probe sent after the commit came back, it is hung,
 * however many more come back meanwhile (each used to move the start). */
static void keepalives_after_an_idle_spell_do_not_hide_a_hang(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	uint64_t now = 0;
	for (int i = 0; i < 20; i++) { /* idle: a keepalive each 3 s */
		now += 3000 * MS;
		send_liveness_probed(&l, now);
		send_liveness_probe_back(&l, now + 5 * MS);
	}
	uint64_t posted = now + 100 * MS, first_back = 0;
	now = posted;
	while (at(&l, posted, now) != SEND_HUNG) {
		assert_true(now < posted + 3 * TIMEOUT);
		if (at(&l, posted, now) == SEND_PROBE) {
			send_liveness_probed(&l, now);
			send_liveness_probe_back(&l, now + 5 * MS);
			if (!first_back)
				first_back = now + 5 * MS;
		}
		now += 100 * MS;
	}
	assert_true(now >= first_back + 2 * TIMEOUT);
	assert_true(now < first_back + 2 * TIMEOUT + 200 * MS);
}

/* The sender's own loop could not run (its host short of CPU: it woke
 * 20 s late from a 100 ms wait): that time is no silence of the
 * receiver's. A program that answers nothing while the sender runs on
 * time is still found hung, and a probe unanswered, gone. */
static void time_the_sender_could_not_run_is_no_silence(void **state)
{
	(void)state;
	struct send_liveness l;
	struct rs_stall st = {0};
	send_liveness_start(&l, 0);
	uint64_t posted = 1000 * MS, silent = 0;
	send_liveness_probed(&l, 6000 * MS);
	send_liveness_probe_back(&l, 6010 * MS);
	rs_stall_waits(&st, 6100 * MS, 100 * MS);
	rs_stall_woke(&st, 26100 * MS); /* 20 s late */
	assert_int_equal(
	    send_liveness_check(&l, posted, 26100 * MS, TIMEOUT, &st, &silent),
	    SEND_LIVE);
	assert_int_equal(
	    send_liveness_check(&l, posted, 26100 * MS, TIMEOUT, 0, &silent),
	    SEND_HUNG); /* without: a hang it did not see */
	/* from then on on time: hung twice the timeout after the probe's
	 * return, and the 19.85 s it could not look (20 s less the slack) */
	for (uint64_t now = 26100 * MS; now < 50000 * MS; now += 100 * MS) {
		rs_stall_waits(&st, now, 100 * MS);
		rs_stall_woke(&st, now + 100 * MS);
	}
	assert_int_equal(
	    send_liveness_check(&l, posted, 45800 * MS, TIMEOUT, &st, &silent),
	    SEND_PROBE);
	assert_int_equal(
	    send_liveness_check(&l, posted, 45900 * MS, TIMEOUT, &st, &silent),
	    SEND_HUNG);
}

/* A PMem host short of CPU: the program's answers took 11 s lately (the
 * peer timeout is 10 s). Its next silence gets twice that before it is
 * judged hung, not twice the timeout: it is slow. One whose answers came
 * at once is judged at twice the timeout. */
static void a_program_slow_lately_gets_twice_its_slowest(void **state)
{
	(void)state;
	for (int slow = 0; slow < 2; slow++) {
		struct send_liveness l;
		send_liveness_start(&l, 0);
		uint64_t took = slow ? 11000 * MS : 5 * MS;
		send_liveness_answered_after(&l, 1000 * MS + took, 1000 * MS);
		uint64_t posted = 20000 * MS, back = 25000 * MS, silent;
		send_liveness_probed(&l, back - 10 * MS);
		send_liveness_probe_back(&l, back);
		enum send_liveness_verdict at_2t = send_liveness_check(
		    &l, posted, back + 2 * TIMEOUT, TIMEOUT, 0, &silent);
		enum send_liveness_verdict at_2took = send_liveness_check(
		    &l, posted, back + 2 * 11000 * MS, TIMEOUT, 0, &silent);
		assert_int_equal(at_2t, slow ? SEND_PROBE : SEND_HUNG);
		assert_int_equal(at_2took, SEND_HUNG);
	}
}

/* However slow it was lately (answers took a minute), a program silent
 * after a request is judged hung within three peer timeouts of it: the
 * first probe half a timeout on, then 2.5 timeouts at most. */
static void a_hung_program_is_found_within_three_timeouts(void **state)
{
	(void)state;
	struct send_liveness l;
	send_liveness_start(&l, 0);
	send_liveness_answered_after(&l, 61000 * MS, 1000 * MS);
	uint64_t posted = 100000 * MS, back = posted + TIMEOUT / 2, silent;
	send_liveness_probed(&l, back - 10 * MS);
	send_liveness_probe_back(&l, back);
	assert_int_equal(send_liveness_check(&l, posted, back + 2 * TIMEOUT,
					     TIMEOUT, 0, &silent),
			 SEND_PROBE);
	assert_int_equal(send_liveness_check(&l, posted, posted + 3 * TIMEOUT,
					     TIMEOUT, 0, &silent),
			 SEND_HUNG);
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
	    send_liveness_check(&l, 1000 * MS, 11000 * MS, TIMEOUT, 0, &silent),
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
	    cmocka_unit_test(a_silent_program_behind_a_live_adapter_is_hung),
	    cmocka_unit_test(a_probe_proves_only_what_went_before_it),
	    cmocka_unit_test(an_unanswered_probe_means_gone),
	    cmocka_unit_test(a_program_slow_lately_gets_twice_its_slowest),
	    cmocka_unit_test(a_hung_program_is_found_within_three_timeouts),
	    cmocka_unit_test(time_the_sender_could_not_run_is_no_silence),
	    cmocka_unit_test(keepalives_after_an_idle_spell_do_not_hide_a_hang),
	    cmocka_unit_test(any_word_restarts_the_wait),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
