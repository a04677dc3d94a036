/* The receiver's record in the pool's header page (pool/log_state.h): the newer
 * valid slot wins, a torn or foreign slot does not count, and a new record
 * always goes into the slot the current one is not in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pool/log_state.h"

#include <string.h>

static const uint8_t uuid[16] = {1, 2,	3,  4,	5,  6,	7,  8,
				 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t other_uuid[16] = {9};

/* Stores next into page as pool/pmem_target.c does: into the slot it names. */
static void store(uint8_t *page, const struct log_state *next)
{
	uint8_t slot[RECV_LOG_STATE_SLOT];
	unsigned i;
	log_state_encode(next, uuid, slot, &i);
	memcpy(page + i * RECV_LOG_STATE_SLOT, slot, sizeof(slot));
}

static void zero_page_has_no_record(void **state)
{
	(void)state;
	uint8_t page[RECV_LOG_STATE_SLOTS * RECV_LOG_STATE_SLOT] = {0};
	struct log_state s = {.seq = 7, .base = 9};
	assert_false(log_state_decode(page, uuid, &s));
	assert_int_equal(s.base, 0);
	assert_int_equal(s.seq, 0);
}

static void newer_record_wins_and_slots_alternate(void **state)
{
	(void)state;
	uint8_t page[RECV_LOG_STATE_SLOTS * RECV_LOG_STATE_SLOT] = {0};
	struct log_state s;
	for (uint64_t seq = 1; seq <= 5; seq++) {
		uint8_t before[sizeof(page)];
		memcpy(before, page, sizeof(page));
		store(page,
		      &(struct log_state){.seq = seq, .base = seq * 1000});
		assert_true(log_state_decode(page, uuid, &s));
		assert_int_equal(s.seq, seq);
		assert_int_equal(s.base, seq * 1000);
		/* The record before it is untouched: a crash while storing
		 * this one would have left it. */
		if (seq > 1) {
			unsigned kept = (unsigned)((seq - 1) % 2);
			assert_memory_equal(page + kept * RECV_LOG_STATE_SLOT,
					    before + kept * RECV_LOG_STATE_SLOT,
					    RECV_LOG_STATE_SLOT);
		}
	}
}

static void a_switch_round_trips(void **state)
{
	(void)state;
	uint8_t page[RECV_LOG_STATE_SLOTS * RECV_LOG_STATE_SLOT] = {0};
	struct log_state in = {
	    .seq = 3,
	    .base = 77,
	    .sw = {.src = 1u << 20, .len = 5000, .chunk = 4096, .done = 1},
	    .content = 12};
	store(page, &in);
	struct log_state out;
	assert_true(log_state_decode(page, uuid, &out));
	assert_int_equal(out.base, 77);
	assert_int_equal(out.sw.src, 1u << 20);
	assert_int_equal(out.sw.len, 5000);
	assert_int_equal(out.sw.chunk, 4096);
	assert_int_equal(out.sw.done, 1);
	assert_int_equal(out.content, 12);
}

static void torn_slot_falls_back_to_the_other(void **state)
{
	(void)state;
	uint8_t page[RECV_LOG_STATE_SLOTS * RECV_LOG_STATE_SLOT] = {0};
	store(page, &(struct log_state){.seq = 1, .base = 4096});
	store(page, &(struct log_state){.seq = 2, .base = 8192});
	/* seq 2 is in slot 0; a torn write of it (one byte off) */
	page[20] ^= 0x40;
	struct log_state s;
	assert_true(log_state_decode(page, uuid, &s));
	assert_int_equal(s.seq, 1);
	assert_int_equal(s.base, 4096);
	/* The next record goes over the torn one, not the good one. */
	store(page, &(struct log_state){.seq = 2, .base = 12288});
	assert_true(log_state_decode(page, uuid, &s));
	assert_int_equal(s.base, 12288);
}

static void another_pools_record_does_not_count(void **state)
{
	(void)state;
	uint8_t page[RECV_LOG_STATE_SLOTS * RECV_LOG_STATE_SLOT] = {0};
	store(page, &(struct log_state){.seq = 1, .base = 4096});
	struct log_state s;
	assert_false(log_state_decode(page, other_uuid, &s));
	assert_int_equal(s.base, 0);
}

static void the_area_is_in_the_header_page(void **state)
{
	(void)state;
	/* Past libpmemlog's header and its run-time fields, before the data
	 * range of a fresh pool (8192). */
	assert_true(RECV_LOG_STATE_OFFSET >= 4096 + 512);
	assert_true(RECV_LOG_STATE_END <= 8192);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(zero_page_has_no_record),
	    cmocka_unit_test(newer_record_wins_and_slots_alternate),
	    cmocka_unit_test(a_switch_round_trips),
	    cmocka_unit_test(torn_slot_falls_back_to_the_other),
	    cmocka_unit_test(another_pools_record_does_not_count),
	    cmocka_unit_test(the_area_is_in_the_header_page),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
