/* How much of the tail a writer's windows reach: regions from the head's
 * page, a floor for an idle writer, four times its credits of its largest
 * batch for a streaming one, the room a batch asks for, never past the range.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "reach/write_reach.h"

#define START 8192u
#define MIB (1ull << 20)

/* An idle tail -F writer pins the floor, whatever the pool's size. */
static void an_idle_writer_gets_the_floor(void **state)
{
	(void)state;
	struct recv_write_reach p = recv_write_reach_init(START, 1ull << 30, 8);
	assert_int_equal(recv_write_reach_span(&p), RECV_REACH_FLOOR);
	recv_write_reach_note(&p, 100); /* a line */
	assert_int_equal(recv_write_reach_span(&p), RECV_REACH_FLOOR);
	uint64_t from, to;
	recv_write_reach_region(&p, START + 5000, 0, &from, &to);
	assert_int_equal(from, 12288); /* the head's page */
	assert_int_equal(to, from + RECV_REACH_FLOOR);
}

/* A streaming writer's span is four times what it may have in flight. */
static void a_stream_gets_twice_its_window(void **state)
{
	(void)state;
	struct recv_write_reach p = recv_write_reach_init(START, 1ull << 30, 8);
	recv_write_reach_note(&p, MIB);
	assert_int_equal(recv_write_reach_span(&p), 32 * MIB);
	recv_write_reach_note(&p, 4096); /* smaller batches later: kept */
	assert_int_equal(recv_write_reach_span(&p), 32 * MIB);
}

/* Never past the data range: a small pool is reached whole. */
static void a_small_pool_is_reached_whole(void **state)
{
	(void)state;
	struct recv_write_reach p =
	    recv_write_reach_init(START, START + 65536, 8);
	assert_int_equal(recv_write_reach_span(&p), 65536);
	uint64_t from, to;
	recv_write_reach_region(&p, START + 70, 0, &from, &to);
	assert_int_equal(from, START);
	assert_int_equal(to, START + 65536);
	/* the region serves every head up to the end, the end included */
	assert_true(recv_write_reach_serves(&p, from, to, START + 65000, 0));
	assert_true(recv_write_reach_serves(&p, from, to, START + 65536, 0));
}

/* A region serves while half a span is left past the head, and the room
 * a batch asks for; a head outside it never. */
static void a_region_serves_half_a_span(void **state)
{
	(void)state;
	struct recv_write_reach p = recv_write_reach_init(START, 1ull << 30, 8);
	uint64_t from, to;
	recv_write_reach_region(&p, START, 0, &from, &to);
	uint64_t half = RECV_REACH_FLOOR / 2;
	assert_true(recv_write_reach_serves(&p, from, to, to - half, 0));
	assert_false(recv_write_reach_serves(&p, from, to, to - half + 1, 0));
	assert_false(recv_write_reach_serves(&p, from, to, from - 1, 0));
	assert_false(recv_write_reach_serves(&p, from, to, to + 1, 0));
	assert_false(recv_write_reach_serves(&p, from, to, START, MIB));
	/* the region for that room holds it */
	recv_write_reach_note(&p, MIB);
	recv_write_reach_region(&p, START + 100, MIB, &from, &to);
	assert_true(to - (START + 100) >= MIB);
	assert_true(recv_write_reach_serves(&p, from, to, START + 100, MIB));
}

/* Room asked near the end is cut at the end: a batch never goes past
 * it (the sender's window stops there). */
static void room_stops_at_the_end(void **state)
{
	(void)state;
	uint64_t end = START + 64 * MIB;
	struct recv_write_reach p = recv_write_reach_init(START, end, 8);
	uint64_t from, to;
	recv_write_reach_region(&p, end - 1000, 4 * MIB, &from, &to);
	assert_int_equal(to, end);
	assert_int_equal(from, (end - 1000) & ~4095ull);
	assert_true(recv_write_reach_serves(&p, from, to, end - 1000, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(an_idle_writer_gets_the_floor),
	    cmocka_unit_test(a_stream_gets_twice_its_window),
	    cmocka_unit_test(a_small_pool_is_reached_whole),
	    cmocka_unit_test(a_region_serves_half_a_span),
	    cmocka_unit_test(room_stops_at_the_end),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
