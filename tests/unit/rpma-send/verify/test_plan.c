/* How a verify compares, from what the receiver offers: the depth within
 * its credits, read-backs only where it grants them (through the ring in
 * slot-sized chunks), and the range cut at the committed end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "verify/plan.h"

#define START 8192u
#define MIB (1u << 20)

static struct verify_offer offer(bool pool, bool ring)
{
	return (struct verify_offer){.credits = 8,
				     .pool_readable = pool,
				     .ring_readable = ring,
				     .ring_slot = 256 * 1024,
				     .start = START,
				     .pool_start = START,
				     .committed_end = START + 5 * MIB};
}

static struct verify_config config(enum verify_method m)
{
	return (struct verify_config){
	    .method = m, .chunk = MIB, .depth = 4, .whole_log = true};
}

static struct verify_plan planned(const struct verify_config *cfg,
				  const struct verify_offer *o)
{
	struct verify_plan p;
	assert_int_equal(verify_plan_make(cfg, o, &p, NULL), 0);
	return p;
}

static void hash_needs_no_read(void **state)
{
	(void)state;
	struct verify_config cfg = config(VERIFY_HASH);
	struct verify_offer o = offer(false, false);
	struct verify_plan p = planned(&cfg, &o);
	assert_true(p.by_hash);
	assert_false(p.can_read); /* a difference is halved */
	assert_int_equal(p.chunk, MIB);
	assert_int_equal(p.depth, 4);
	assert_int_equal(p.log_offset, START);
	assert_int_equal(p.remote_len, 5 * MIB);
}

/* A log that rotated: its first bytes are in the archive, which only the
 * ring reads, so chunks fit a ring slot even where the pool is readable. */
static void archived_bytes_are_read_through_the_ring(void **state)
{
	(void)state;
	struct verify_config cfg = config(VERIFY_READ);
	struct verify_offer o = offer(true, true);
	assert_int_equal(planned(&cfg, &o).chunk, MIB);
	o.pool_start = START + 2 * MIB;
	struct verify_plan p = planned(&cfg, &o);
	assert_int_equal(p.chunk, 256 * 1024);
	assert_int_equal(p.log_offset, START);
	assert_int_equal(p.remote_len, 5 * MIB);
}

static void read_needs_a_grant(void **state)
{
	(void)state;
	struct verify_config cfg = config(VERIFY_READ);
	struct verify_offer o = offer(false, false);
	struct verify_plan p;
	struct rs_error err = {0};
	assert_int_equal(verify_plan_make(&cfg, &o, &p, &err), RS_E_INVAL);
	assert_string_equal(err.msg, "--verify=read: the receiver grants no "
				     "remote read; use --verify=hash");
}

static void read_from_the_pool(void **state)
{
	(void)state;
	struct verify_config cfg = config(VERIFY_READ);
	struct verify_offer o = offer(true, true);
	struct verify_plan p = planned(&cfg, &o);
	assert_false(p.by_hash);
	assert_true(p.can_read);
	assert_int_equal(p.chunk, MIB); /* the ring is not needed */
}

/* Through the ring, whatever is read back fits one slot: by hash too,
 * for a first difference. */
static void the_ring_bounds_the_chunk(void **state)
{
	(void)state;
	struct verify_offer o = offer(false, true);
	struct verify_plan p;
	for (int m = VERIFY_HASH; m <= VERIFY_READ; m++) {
		struct verify_config cfg = config((enum verify_method)m);
		p = planned(&cfg, &o);
		assert_true(p.can_read);
		assert_int_equal(p.chunk, 256 * 1024);
	}
	struct verify_config small = config(VERIFY_READ);
	small.chunk = 4096;
	p = planned(&small, &o);
	assert_int_equal(p.chunk, 4096);
}

static void credits_bound_the_depth(void **state)
{
	(void)state;
	struct verify_config cfg = config(VERIFY_HASH);
	cfg.depth = 64;
	struct verify_offer o = offer(true, false);
	struct verify_plan p = planned(&cfg, &o);
	assert_int_equal(p.depth, 8);
}

/* --send: the range shipped, cut where the log's commits end. */
static void a_range_cut_at_the_committed_end(void **state)
{
	(void)state;
	struct verify_config cfg = config(VERIFY_HASH);
	cfg.whole_log = false;
	cfg.offset = 4 * MIB;
	cfg.length = 3 * MIB;
	struct verify_offer o = offer(true, false);
	struct verify_plan p = planned(&cfg, &o);
	assert_int_equal(p.log_offset, START + 4 * MIB);
	assert_int_equal(p.remote_len, MIB);

	cfg.length = 100;
	p = planned(&cfg, &o);
	assert_int_equal(p.remote_len, 100);

	cfg.offset = 6 * MIB; /* past the end: nothing remote */
	p = planned(&cfg, &o);
	assert_int_equal(p.log_offset, START + 6 * MIB);
	assert_int_equal(p.remote_len, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(hash_needs_no_read),
	    cmocka_unit_test(archived_bytes_are_read_through_the_ring),
	    cmocka_unit_test(read_needs_a_grant),
	    cmocka_unit_test(read_from_the_pool),
	    cmocka_unit_test(the_ring_bounds_the_chunk),
	    cmocka_unit_test(credits_bound_the_depth),
	    cmocka_unit_test(a_range_cut_at_the_committed_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
