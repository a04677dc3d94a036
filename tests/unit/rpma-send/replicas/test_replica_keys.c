/* A replica's keys and keepalives (replicas/replica_keys.h): the keys it
 * hears kept by the rule its receiver holds them by (lib/session's
 * window_keys.h), a lone commit's reply revoking the older; while its
 * rebase is out, its program asked every half peer timeout, one at a
 * time, so that a seal that takes long is heard and a hung receiver is
 * found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "proto/message.h"
#include "replicas/liveness.h"
#include "replicas/replica_keys.h"

#define MS 1000000ull
#define TIMEOUT (10000 * MS)

/* The keys heard, as the receiver holds them: a reply's new key is the
 * newest, the one before still holds; the reply to a lone commit leaves
 * only its own; a keepalive names a key no commit named yet. */
static void keys_heard_by_the_receivers_rule(void **state)
{
	(void)state;
	struct replica_keys k;
	replica_keys_start(&k);
	struct rs_msg done = {.type = RS_MSG_COMMIT_DONE, .key = 0x101};
	replica_keys_heard(&k, &done, 1);
	replica_keys_posted(&k, false);
	done.key = 0x202;
	replica_keys_heard(&k, &done, 2);
	assert_true(rs_window_keys_hold(&k.ids, 0x101));
	assert_true(rs_window_keys_hold(&k.ids, 0x202));
	/* a keepalive now names 0x202, which no commit named yet */
	assert_int_equal(replica_keys_keepalive_sent(&k, 3), 0x202);
	done.type = RS_MSG_KEEPALIVE_DONE;
	replica_keys_heard(&k, &done, 4);
	/* a lone commit: nothing named until its reply, which revokes */
	replica_keys_posted(&k, true);
	assert_int_equal(replica_keys_keepalive_sent(&k, 5), 0);
	done = (struct rs_msg){.type = RS_MSG_COMMIT_DONE, .key = 0x303};
	replica_keys_heard(&k, &done, 6);
	assert_false(rs_window_keys_hold(&k.ids, 0x202));
	assert_true(rs_window_keys_hold(&k.ids, 0x303));
	assert_int_equal(k.ids.before, 0);
	assert_false(k.lone_out);
}

static void asked_each_half_timeout_one_at_a_time(void **state)
{
	(void)state;
	struct replica_keys k;
	replica_keys_start(&k);
	uint64_t rebase = 1000 * MS;
	assert_int_equal(
	    replica_keys_rebase_keepalive_at(&k, rebase, 0, TIMEOUT),
	    rebase + TIMEOUT / 2);
	replica_keys_asked(&k, rebase + TIMEOUT / 2);
	assert_int_equal(replica_keys_rebase_keepalive_at(
			     &k, rebase, rebase + TIMEOUT / 2, TIMEOUT),
			 0);
	struct rs_msg done = {.type = RS_MSG_KEEPALIVE_DONE};
	replica_keys_heard(&k, &done, rebase + TIMEOUT / 2 + MS);
	assert_int_equal(replica_keys_rebase_keepalive_at(
			     &k, rebase, rebase + TIMEOUT / 2, TIMEOUT),
			 rebase + TIMEOUT);
}

/* A keepalive message out to a program that does not answer: the
 * probes of the link that come back send no second one (it would take a
 * receive the stopped receiver never gives back, and hold back every
 * probe behind it); its answer does. A keepalive that is a probe is
 * answered by the probe's return. */
static void a_message_out_until_its_program_answers(void **state)
{
	(void)state;
	struct replica_keys k;
	replica_keys_start(&k);
	uint64_t rebase = 1000 * MS, asked = rebase + TIMEOUT / 2;
	replica_keys_asked(&k, asked);
	replica_keys_probe_answered(&k);
	assert_int_equal(
	    replica_keys_rebase_keepalive_at(&k, rebase, asked, TIMEOUT), 0);
	struct rs_msg done = {.type = RS_MSG_KEEPALIVE_DONE};
	replica_keys_heard(&k, &done, asked + MS);
	assert_int_equal(
	    replica_keys_rebase_keepalive_at(&k, rebase, asked, TIMEOUT),
	    asked + TIMEOUT / 2);
	/* no key to name: the keepalive is a probe */
	assert_int_equal(replica_keys_keepalive_sent(&k, asked + 2 * MS), 0);
	assert_int_equal(replica_keys_keepalive_at(&k, asked, TIMEOUT), 0);
	replica_keys_probe_answered(&k);
	assert_int_equal(replica_keys_keepalive_at(&k, asked, TIMEOUT),
			 asked + TIMEOUT / 4);
}

/* The schedule a rebase out for ten peer timeouts makes, with the
 * receiver's program answering each keepalive in 5 ms: never hung; and
 * the same with a program that stopped answering at 4 timeouts: hung
 * within three peer timeouts of its last answer, having asked it once
 * since (replica.c's probes return through replica_keys_probe_answered
 * too). */
static unsigned asked_unanswered;

static enum send_liveness_verdict rebase_of(uint64_t answers_until,
					    uint64_t *hung_at)
{
	struct replica_keys k;
	struct send_liveness l;
	replica_keys_start(&k);
	send_liveness_start(&l, 0);
	uint64_t rebase = 1000 * MS, last_sent = rebase, answer_at = 0;
	enum send_liveness_verdict v = SEND_LIVE;
	for (uint64_t now = rebase; now < rebase + 10 * TIMEOUT; now += MS) {
		if (answer_at && now >= answer_at) {
			struct rs_msg done = {.type = RS_MSG_KEEPALIVE_DONE};
			replica_keys_heard(&k, &done, now);
			send_liveness_answered(&l, now);
			answer_at = 0;
		}
		uint64_t at = replica_keys_rebase_keepalive_at(
		    &k, rebase, last_sent, TIMEOUT);
		if (at && now >= at) {
			replica_keys_asked(&k, now);
			last_sent = now;
			if (now < answers_until)
				answer_at = now + 5 * MS;
			else
				asked_unanswered++;
		}
		uint64_t waiting = k.keepalive_ns && k.keepalive_ns < rebase
				       ? k.keepalive_ns
				       : rebase,
			 silent;
		v = send_liveness_check(&l, waiting, now, TIMEOUT, 0, &silent);
		if (v == SEND_PROBE) {
			send_liveness_probed(&l, now);
			send_liveness_probe_back(&l, now + MS);
			replica_keys_probe_answered(&k);
		} else if (v == SEND_HUNG || v == SEND_GONE) {
			*hung_at = now;
			return v;
		}
	}
	return v;
}

static void a_long_seal_is_heard_a_hang_is_found(void **state)
{
	(void)state;
	uint64_t hung_at = 0;
	assert_int_equal(rebase_of(UINT64_MAX, &hung_at), SEND_LIVE);
	uint64_t stop = 1000 * MS + 4 * TIMEOUT;
	asked_unanswered = 0;
	assert_int_equal(rebase_of(stop, &hung_at), SEND_HUNG);
	assert_true(hung_at < stop + 3 * TIMEOUT);
	assert_int_equal(asked_unanswered, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(keys_heard_by_the_receivers_rule),
	    cmocka_unit_test(asked_each_half_timeout_one_at_a_time),
	    cmocka_unit_test(a_message_out_until_its_program_answers),
	    cmocka_unit_test(a_long_seal_is_heard_a_hang_is_found),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
