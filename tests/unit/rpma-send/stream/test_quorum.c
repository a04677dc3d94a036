/* The quorum of a replicated stream: what is committed under the all
 * replicas and the K of N rules, while replicas are lost, come back within
 * or beyond the ring, or are dropped; and what the ring must still hold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "stream/quorum.h"

#include <string.h>

/* Where every replica's log starts: offsets below are relative to it. */
#define S 8192u

static void init(struct quorum *q, unsigned n, unsigned k)
{
	assert_int_equal(quorum_init(q, n, k, S), 0);
	assert_int_equal(quorum_committed(q), S);
	assert_int_equal(quorum_ring_floor(q), S);
	assert_true(quorum_viable(q));
	assert_int_equal(quorum_active_count(q), n);
	assert_int_equal(quorum_live_count(q), n);
}

static void confirm(struct quorum *q, unsigned i, uint64_t offset)
{
	assert_int_equal(quorum_confirmed(q, i, S + offset), 0);
}

static void committed_is(const struct quorum *q, uint64_t offset)
{
	assert_int_equal(quorum_committed(q), S + offset);
}

static void state_is(const struct quorum *q, unsigned i, enum replica_state s)
{
	assert_string_equal(quorum_state_name(quorum_replica_state(q, i)),
			    quorum_state_name(s));
}

static void all_replicas_commit_the_minimum(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 3, 3);
	confirm(&q, 0, 100);
	committed_is(&q, 0);
	confirm(&q, 1, 200);
	committed_is(&q, 0);
	confirm(&q, 2, 50);
	committed_is(&q, 50);
	confirm(&q, 2, 300);
	committed_is(&q, 100);
	confirm(&q, 0, 300);
	committed_is(&q, 200);
	confirm(&q, 1, 300);
	committed_is(&q, 300);
	assert_int_equal(quorum_count_at(&q, S + 300), 3);
}

static void two_of_three_commit_the_second_highest(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 3, 2);
	confirm(&q, 0, 100);
	committed_is(&q, 0); /* on one replica only */
	confirm(&q, 1, 50);
	committed_is(&q, 50);
	confirm(&q, 2, 300);
	committed_is(&q, 100); /* 300, 100, 50 */
	confirm(&q, 1, 400);
	committed_is(&q, 300); /* 400, 300, 100 */
	/* One of one: the fastest replica commits. */
	init(&q, 3, 1);
	confirm(&q, 2, 70);
	committed_is(&q, 70);
}

/* A replica's log never shrinks: an offset below what it confirmed is
 * refused and changes nothing; the same offset again is harmless. */
static void confirmations_only_go_forward(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 2, 1);
	confirm(&q, 0, 100);
	assert_int_equal(quorum_confirmed(&q, 0, S + 99), RS_E_MALFORMED);
	assert_int_equal(quorum_replica_offset(&q, 0), S + 100);
	committed_is(&q, 100);
	confirm(&q, 0, 100);
	assert_int_equal(quorum_confirmed(&q, 2, S + 500),
			 RS_E_INVAL); /* no such */
	assert_int_equal(quorum_confirmed(&q, 99, S + 500), RS_E_INVAL);
	committed_is(&q, 100);
}

/* 2 of 3 with one replica lost: the other two keep committing, the lost
 * one counting with what it confirmed. */
static void loss_with_k_met_keeps_committing(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 3, 2);
	confirm(&q, 0, 100);
	confirm(&q, 1, 100);
	confirm(&q, 2, 100);
	quorum_lost(&q, 2);
	state_is(&q, 2, REPLICA_LOST);
	assert_true(quorum_viable(&q));
	assert_int_equal(quorum_active_count(&q), 2);
	assert_int_equal(quorum_live_count(&q), 3);
	confirm(&q, 0, 500);
	committed_is(&q, 100); /* 500, 100 (lost), 100 */
	confirm(&q, 1, 400);
	committed_is(&q, 400);
	/* Dropped while k remain: still viable, still committing. */
	quorum_drop(&q, 2);
	assert_true(quorum_viable(&q));
	confirm(&q, 1, 600);
	committed_is(&q, 500);
	/* The stream ends committed on fewer replicas than listed. */
	assert_int_equal(quorum_count_at(&q, quorum_committed(&q)), 2);
	assert_int_equal(quorum_replica_offset(&q, 2), S + 100);
	state_is(&q, 2, REPLICA_DROPPED);
}

/* All of 3: a lost replica holds the commit where it stopped; dropped, the
 * quorum is gone and the committed offset stays what it was. */
static void loss_below_k_stops_committing(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 3, 3);
	for (unsigned i = 0; i < 3; i++)
		confirm(&q, i, 100);
	quorum_lost(&q, 2);
	assert_true(quorum_viable(&q)); /* it may come back */
	confirm(&q, 0, 200);
	confirm(&q, 1, 200);
	committed_is(&q, 100);
	quorum_drop(&q, 2);
	assert_false(quorum_viable(&q));
	committed_is(&q, 100);
	confirm(&q, 0, 300);
	confirm(&q, 1, 300);
	committed_is(&q, 100);
	assert_int_equal(quorum_count_at(&q, S + 100), 3);
	assert_int_equal(quorum_count_at(&q, S + 300), 2);

	/* 2 of 3: the first drop is survived, the second is not. */
	init(&q, 3, 2);
	quorum_drop(&q, 0);
	assert_true(quorum_viable(&q));
	confirm(&q, 1, 50);
	confirm(&q, 2, 60);
	committed_is(&q, 50);
	quorum_drop(&q, 1);
	assert_false(quorum_viable(&q));
	confirm(&q, 2, 90);
	committed_is(&q, 50);
	assert_int_equal(quorum_active_count(&q), 1);
	assert_int_equal(quorum_live_count(&q), 1);
}

/* Back within the ring: catching up from its log's end until it has what
 * the others had when it came back, then active again. */
static void rejoin_within_the_ring_catches_up(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 3, 2);
	for (unsigned i = 0; i < 3; i++)
		confirm(&q, i, 100);
	quorum_lost(&q, 2);
	confirm(&q, 0, 300);
	confirm(&q, 1, 250);
	assert_int_equal(quorum_rejoin(&q, 2, S + 100, S + 100),
			 REPLICA_CATCHING_UP);
	state_is(&q, 2, REPLICA_CATCHING_UP);
	assert_int_equal(quorum_active_count(&q), 2);
	confirm(&q, 0, 400); /* the others move on */
	confirm(&q, 2, 200);
	state_is(&q, 2, REPLICA_CATCHING_UP);
	confirm(&q, 2, 300); /* what the others had at the reconnect */
	state_is(&q, 2, REPLICA_ACTIVE);
	assert_int_equal(quorum_active_count(&q), 3);
	committed_is(&q, 300);

	/* Lost again while catching up: lost, and back once more. */
	quorum_lost(&q, 1);
	assert_int_equal(quorum_rejoin(&q, 1, S + 250, S), REPLICA_CATCHING_UP);
	quorum_lost(&q, 1);
	state_is(&q, 1, REPLICA_LOST);
	assert_int_equal(quorum_replica_offset(&q, 1), S + 250);
	/* Its log holds more than it confirmed: that counts now, and when
	 * it has what the others have it is active at once. */
	assert_int_equal(quorum_rejoin(&q, 1, S + 400, S + 200),
			 REPLICA_ACTIVE);
	committed_is(&q, 400);
	assert_int_equal(quorum_replica_offset(&q, 1), S + 400);
}

/* Back after the ring reused its gap: dropped, for good. */
static void rejoin_beyond_the_ring_is_dropped(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 3, 2);
	for (unsigned i = 0; i < 3; i++)
		confirm(&q, i, 100);
	quorum_lost(&q, 2);
	confirm(&q, 0, 900);
	confirm(&q, 1, 900);
	assert_int_equal(quorum_rejoin(&q, 2, S + 100, S + 101),
			 REPLICA_DROPPED);
	state_is(&q, 2, REPLICA_DROPPED);
	assert_int_equal(quorum_replica_offset(&q, 2), S + 100);
	assert_true(quorum_viable(&q));
	/* It never comes back nor counts again. */
	assert_int_equal(quorum_rejoin(&q, 2, S + 900, S), REPLICA_DROPPED);
	assert_int_equal(quorum_confirmed(&q, 2, S + 1000), 0);
	assert_int_equal(quorum_replica_offset(&q, 2), S + 100);
	quorum_lost(&q, 2);
	state_is(&q, 2, REPLICA_DROPPED);
	assert_int_equal(quorum_count_at(&q, S + 900), 2);
}

/* Back with less than it confirmed: its log is not the one that
 * confirmed, so it is dropped and reported at the length it has now. */
static void rejoin_with_a_shorter_log_is_dropped(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 2, 1);
	confirm(&q, 0, 100);
	confirm(&q, 1, 100);
	quorum_lost(&q, 1);
	assert_int_equal(quorum_rejoin(&q, 1, S + 60, S), REPLICA_DROPPED);
	assert_int_equal(quorum_replica_offset(&q, 1), S + 60);
	assert_int_equal(quorum_count_at(&q, S + 100), 1);
	committed_is(&q, 100);
}

/* Dropping the fastest replica does not uncommit what it helped commit. */
static void committed_never_goes_back(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 3, 2);
	confirm(&q, 0, 500);
	confirm(&q, 1, 400);
	confirm(&q, 2, 100);
	committed_is(&q, 400);
	quorum_drop(&q, 0);
	committed_is(&q, 400); /* 400, 100 left: not 100 */
	confirm(&q, 2, 450);
	committed_is(&q, 400); /* 450, 400 */
	confirm(&q, 1, 460);
	committed_is(&q, 450);

	/* One of two: the fast one lost then given up, the slow one goes
	 * on from below what was committed. */
	init(&q, 2, 1);
	confirm(&q, 0, 300);
	quorum_lost(&q, 0);
	committed_is(&q, 300);
	quorum_drop(&q, 0);
	assert_true(quorum_viable(&q));
	committed_is(&q, 300);
	confirm(&q, 1, 100);
	committed_is(&q, 300);
	confirm(&q, 1, 350);
	committed_is(&q, 350);
}

/* The ring keeps what the slowest live replica has not confirmed. */
static void ring_floor(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 3, 2);
	confirm(&q, 0, 500);
	confirm(&q, 1, 300);
	confirm(&q, 2, 100);
	assert_int_equal(quorum_ring_floor(&q), S + 100);
	quorum_lost(&q, 2); /* it may come back: its gap stays */
	assert_int_equal(quorum_ring_floor(&q), S + 100);
	assert_int_equal(quorum_rejoin(&q, 2, S + 150, S + 100),
			 REPLICA_CATCHING_UP);
	assert_int_equal(quorum_ring_floor(&q), S + 150);
	quorum_drop(&q, 2);
	assert_int_equal(quorum_ring_floor(&q), S + 300);
	assert_true(quorum_ring_floor(&q) <= quorum_committed(&q));
	/* No live replica: nothing to hold beyond what is committed. */
	quorum_drop(&q, 0);
	quorum_drop(&q, 1);
	assert_int_equal(quorum_ring_floor(&q), quorum_committed(&q));
	committed_is(&q, 300);

	/* Not viable: the floor may pass the commit; free below the min. */
	init(&q, 2, 2);
	quorum_drop(&q, 0);
	confirm(&q, 1, 200);
	committed_is(&q, 0);
	assert_int_equal(quorum_ring_floor(&q), S + 200);
}

/* A full ring may drop the lost replicas that pin it, lowest first, but
 * never a connected one nor one the quorum cannot do without. */
static void drop_laggards(void **state)
{
	(void)state;
	struct quorum q;
	init(&q, 4, 1);
	confirm(&q, 0, 500);
	confirm(&q, 1, 100);
	confirm(&q, 2, 200);
	confirm(&q, 3, 50); /* slow, but connected */
	quorum_lost(&q, 1);
	quorum_lost(&q, 2);
	assert_int_equal(quorum_drop_laggards(&q, S + 40), 0);
	assert_int_equal(quorum_drop_laggards(&q, S + 150), 1);
	state_is(&q, 1, REPLICA_DROPPED);
	state_is(&q, 2, REPLICA_LOST);
	state_is(&q, 3, REPLICA_ACTIVE);
	assert_int_equal(quorum_ring_floor(&q), S + 50);
	confirm(&q, 3, 500);
	assert_int_equal(quorum_ring_floor(&q), S + 200);
	assert_int_equal(quorum_drop_laggards(&q, S + 1000), 1);
	state_is(&q, 2, REPLICA_DROPPED);
	assert_int_equal(quorum_ring_floor(&q), S + 500);
	assert_int_equal(quorum_drop_laggards(&q, S + 1000), 0);

	/* 2 of 3, two lost: only one may go, the lower. */
	init(&q, 3, 2);
	confirm(&q, 0, 500);
	confirm(&q, 1, 300);
	confirm(&q, 2, 200);
	quorum_lost(&q, 1);
	quorum_lost(&q, 2);
	assert_int_equal(quorum_drop_laggards(&q, S + 1000), 1);
	state_is(&q, 2, REPLICA_DROPPED);
	state_is(&q, 1, REPLICA_LOST);
	assert_true(quorum_viable(&q));

	/* All replicas required: a lost one is waited for, not dropped. */
	init(&q, 2, 2);
	quorum_lost(&q, 1);
	assert_int_equal(quorum_drop_laggards(&q, S + 1000), 0);
	state_is(&q, 1, REPLICA_LOST);
}

static void bad_k_is_refused(void **state)
{
	(void)state;
	struct quorum q, before;
	memset(&q, 0x5a, sizeof(q));
	before = q;
	assert_int_equal(quorum_init(&q, 3, 0, S), RS_E_INVAL);
	assert_int_equal(quorum_init(&q, 3, 4, S), RS_E_INVAL);
	assert_int_equal(quorum_init(&q, 0, 0, S), RS_E_INVAL);
	assert_int_equal(quorum_init(&q, 0, 1, S), RS_E_INVAL);
	assert_int_equal(
	    quorum_init(&q, SEND_REPLICAS_MAX + 1, SEND_REPLICAS_MAX, S),
	    RS_E_INVAL);
	assert_memory_equal(&q, &before, sizeof(q));
	init(&q, SEND_REPLICAS_MAX, SEND_REPLICAS_MAX);
	init(&q, SEND_REPLICAS_MAX, 1);
	init(&q, 1, 1);
	confirm(&q, 0, 10);
	committed_is(&q, 10);
}

/* What the closing report reads, and indexes past n. */
static void names_and_bad_indexes(void **state)
{
	(void)state;
	assert_string_equal(quorum_state_name(REPLICA_ACTIVE), "active");
	assert_string_equal(quorum_state_name(REPLICA_LOST), "lost");
	assert_string_equal(quorum_state_name(REPLICA_CATCHING_UP),
			    "catching up");
	assert_string_equal(quorum_state_name(REPLICA_DROPPED), "dropped");
	assert_string_equal(quorum_state_name((enum replica_state)9),
			    "unknown");
	struct quorum q;
	init(&q, 2, 1);
	assert_int_equal(quorum_replica_state(&q, 2), REPLICA_DROPPED);
	assert_int_equal(quorum_replica_offset(&q, 2), 0);
	quorum_lost(&q, 5);
	quorum_drop(&q, 5);
	assert_int_equal(quorum_rejoin(&q, 5, S, S), REPLICA_DROPPED);
	assert_int_equal(quorum_live_count(&q), 2);
	assert_int_equal(quorum_active_count(&q), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(all_replicas_commit_the_minimum),
	    cmocka_unit_test(two_of_three_commit_the_second_highest),
	    cmocka_unit_test(confirmations_only_go_forward),
	    cmocka_unit_test(loss_with_k_met_keeps_committing),
	    cmocka_unit_test(loss_below_k_stops_committing),
	    cmocka_unit_test(rejoin_within_the_ring_catches_up),
	    cmocka_unit_test(rejoin_beyond_the_ring_is_dropped),
	    cmocka_unit_test(rejoin_with_a_shorter_log_is_dropped),
	    cmocka_unit_test(committed_never_goes_back),
	    cmocka_unit_test(ring_floor),
	    cmocka_unit_test(drop_laggards),
	    cmocka_unit_test(bad_k_is_refused),
	    cmocka_unit_test(names_and_bad_indexes),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
