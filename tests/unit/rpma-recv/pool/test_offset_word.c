/* The write offset a one-sided writer stores, as the receiver takes it
 * (pool/offset_rule.h, pool/offset_word.h): the rules, the floor record,
 * and on a real libpmemlog pool in a plain file what is adopted, what is
 * put back, and what a pool left broken by a crash reads as when it is
 * opened again (by us, by libpmemlog, by --info's peek). The writer is
 * played by stores into the mapped word, as its ATOMIC WRITE would land. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../temp_pool.h"
#include "pool/log_state.h"
#include "pool/offset_rule.h"
#include "pool/offset_word.h"
#include "pool/peek.h"
#include "pool/pmdk_log.h"
#include "pool/pmem_target.h"
#include "proto/pool_layout.h"

#include <endian.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#define POOL_SIZE (8u << 20)

/* ---- the rules, pure ---- */

static void test_rules(void **state)
{
	(void)state;
	assert_int_equal(recv_offset_check(8192, 8192, 9000, 8192),
			 RECV_OFFSET_OK);
	assert_int_equal(recv_offset_check(9000, 8192, 9000, 8500),
			 RECV_OFFSET_OK); /* the end itself: a full log */
	assert_int_equal(recv_offset_check(9001, 8192, 9000, 8192),
			 RECV_OFFSET_PAST_END);
	assert_int_equal(recv_offset_check(UINT64_MAX, 8192, 9000, 8192),
			 RECV_OFFSET_PAST_END);
	assert_int_equal(recv_offset_check(8191, 8192, 9000, 8192),
			 RECV_OFFSET_BEFORE_START);
	assert_int_equal(recv_offset_check(0, 8192, 9000, 8192),
			 RECV_OFFSET_BEFORE_START);
	assert_int_equal(recv_offset_check(8499, 8192, 9000, 8500),
			 RECV_OFFSET_BACKWARDS);
	assert_string_equal(recv_offset_rule_text(RECV_OFFSET_PAST_END),
			    "past the data range's end");
}

/* Stores value in the floor slots at area as the receiver does: in the
 * slot not holding the newest. Returns that slot. */
static unsigned floor_store(uint8_t *area, const uint8_t *uuid, uint64_t epoch,
			    uint64_t value)
{
	struct recv_offset_floor now;
	uint8_t rec[RECV_OFFSET_FLOOR_SLOT];
	recv_offset_floor_read(area, uuid, epoch, &now);
	unsigned slot = recv_offset_floor_encode(&now, value, uuid, epoch, rec);
	memcpy(area + slot * RECV_OFFSET_FLOOR_SLOT, rec, sizeof(rec));
	return slot;
}

static uint64_t floor_value(const uint8_t *area, const uint8_t *uuid,
			    uint64_t epoch)
{
	uint64_t v = 0;
	assert_true(recv_offset_floor_decode(area, uuid, epoch, &v));
	return v;
}

/* The two slots are written in turn and the newest whole one is the
 * floor: one torn (a power loss mid-store) leaves the other; a foreign
 * pool's or an older epoch's do not count. */
static void test_floor_record(void **state)
{
	(void)state;
	uint64_t words[RECV_OFFSET_FLOOR_SIZE / 8] = {0};
	uint8_t *area = (uint8_t *)words;
	uint8_t uuid[16] = {1, 2, 3}, other[16] = {9};
	uint64_t v = 0;
	assert_false(recv_offset_floor_decode(area, uuid, 0, &v));
	assert_int_equal(floor_store(area, uuid, 7, 123456), 1);
	assert_int_equal(floor_value(area, uuid, 7), 123456);
	assert_int_equal(floor_store(area, uuid, 7, 9000), 0); /* down too */
	assert_int_equal(floor_value(area, uuid, 7), 9000);
	assert_int_equal(floor_store(area, uuid, 7, 9100), 1);
	assert_int_equal(floor_value(area, uuid, 7), 9100);
	assert_false(
	    recv_offset_floor_decode(area, other, 7, &v)); /* foreign */
	/* written before the receiver's record last changed */
	assert_false(recv_offset_floor_decode(area, uuid, 8, &v));
	area[RECV_OFFSET_FLOOR_SLOT + 3] ^= 1; /* the newest torn */
	assert_int_equal(floor_value(area, uuid, 7), 9000);
	assert_int_equal(floor_store(area, uuid, 7, 9200), 1); /* over it */
	assert_int_equal(floor_value(area, uuid, 7), 9200);
	area[3] ^= 1;
	area[RECV_OFFSET_FLOOR_SLOT + 3] ^= 1; /* both torn */
	assert_false(recv_offset_floor_decode(area, uuid, 7, &v));
	assert_true(recv_offset_floor_fits(8192));
	assert_false(recv_offset_floor_fits(RECV_OFFSET_FLOOR_AT));
}

/* A pool a release before 0.5.0 served holds one 16-byte record where slot
 * 0 begins (the value, then XXH3 of it, the UUID and the epoch): read as
 * the floor until a slot holds one, and slot 1 is written first, so that
 * it stays until then. */
static void test_floor_of_an_older_release(void **state)
{
	(void)state;
	uint64_t words[RECV_OFFSET_FLOOR_SIZE / 8] = {0};
	uint8_t *area = (uint8_t *)words;
	uint8_t uuid[16] = {4, 5, 6}, all[32];
	uint64_t value = htole64(77777), epoch = htole64(3);
	memcpy(all, &value, 8);
	memcpy(all + 8, uuid, 16);
	memcpy(all + 24, &epoch, 8);
	words[0] = value;
	words[1] = htole64(XXH3_64bits(all, sizeof(all)));
	assert_int_equal(floor_value(area, uuid, 3), 77777);
	assert_int_equal(floor_store(area, uuid, 3, 80000), 1);
	assert_int_equal(le64toh(words[0]), 77777); /* left alone */
	assert_int_equal(floor_value(area, uuid, 3), 80000);
	assert_int_equal(floor_store(area, uuid, 3, 81000), 0);
	assert_int_equal(floor_value(area, uuid, 3), 81000);
}

static void test_at_open(void **state)
{
	(void)state;
	enum recv_offset_rule r;
	/* good words are kept, whatever the floor */
	assert_int_equal(recv_offset_at_open(8500, 8192, 9000, true, 8300, &r),
			 8500);
	assert_int_equal(r, RECV_OFFSET_OK);
	/* broken ones go back to the floor */
	assert_int_equal(recv_offset_at_open(9999, 8192, 9000, true, 8300, &r),
			 8300);
	assert_int_equal(r, RECV_OFFSET_PAST_END);
	assert_int_equal(recv_offset_at_open(8200, 8192, 9000, true, 8300, &r),
			 8300);
	assert_int_equal(r, RECV_OFFSET_BACKWARDS);
	assert_int_equal(recv_offset_at_open(100, 8192, 9000, true, 8300, &r),
			 8300);
	assert_int_equal(r, RECV_OFFSET_BEFORE_START);
	/* no floor, or one outside the range: kept, and said broken */
	assert_int_equal(recv_offset_at_open(9999, 8192, 9000, false, 8300, &r),
			 9999);
	assert_int_equal(r, RECV_OFFSET_PAST_END);
	assert_int_equal(recv_offset_at_open(9999, 8192, 9000, true, 100, &r),
			 9999);
}

/* ---- on a pool ---- */

struct fixture {
	char path[64];
	struct recv_pmem_target t;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (temp_pool_open(f->path, "/tmp/rs-test-offset-XXXXXX", &f->t,
			   POOL_SIZE))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	temp_pool_close(f->path, &f->t);
	free(f);
	return 0;
}

/* What a one-sided writer's ATOMIC WRITE leaves in the word. */
static void writer_stores(struct fixture *f, uint64_t word)
{
	uint64_t le = htole64(word);
	memcpy(f->t.base + RS_LOG_WRITE_OFFSET, &le, sizeof(le));
}

/* The same into a pool nobody has open. */
static void writer_stores_closed(const char *path, uint64_t word)
{
	uint64_t le = htole64(word);
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &le, sizeof(le), RS_LOG_WRITE_OFFSET),
			 sizeof(le));
	close(fd);
}

static uint64_t word_in_pool(struct fixture *f)
{
	uint64_t le;
	memcpy(&le, f->t.base + RS_LOG_WRITE_OFFSET, sizeof(le));
	return le64toh(le);
}

static uint64_t floor_in_pool(struct fixture *f)
{
	uint64_t v = 0;
	uint64_t epoch =
	    recv_offset_floor_epoch(f->t.base, f->t.start, f->t.uuid);
	assert_true(recv_offset_floor_decode(f->t.base + RECV_OFFSET_FLOOR_AT,
					     f->t.uuid, epoch, &v));
	return v;
}

/* Closes the target as a crash would leave it (nothing settled) and opens
 * it again. */
static void reopen(struct fixture *f)
{
	recv_pmem_target_close(&f->t);
	struct rs_error err = {0};
	assert_int_equal(recv_pmem_target_open(&f->t, f->path, 0, &err), 0);
}

static void test_good_word_adopted(void **state)
{
	struct fixture *f = *state;
	uint64_t start = f->t.start;
	assert_int_equal(recv_pmem_target_write_offset(&f->t), start);
	assert_int_equal(floor_in_pool(f), start);
	writer_stores(f, start + 1000);
	/* the view does not move until the word is checked */
	assert_int_equal(recv_pmem_target_write_offset(&f->t), start);
	struct recv_offset_seen s = recv_offset_word_adopt(&f->t);
	assert_int_equal(s.rule, RECV_OFFSET_OK);
	assert_true(s.adopted);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), start + 1000);
	assert_int_equal(floor_in_pool(f), start + 1000);
	/* nothing new: nothing adopted */
	s = recv_offset_word_adopt(&f->t);
	assert_false(s.adopted);
}

/* adopt sees a broken word and changes nothing; settle puts it back. */
static void broken_word_put_back(struct fixture *f, uint64_t bad,
				 enum recv_offset_rule rule)
{
	uint64_t good = recv_pmem_target_write_offset(&f->t);
	writer_stores(f, bad);
	struct recv_offset_seen s = recv_offset_word_adopt(&f->t);
	assert_int_equal(s.rule, rule);
	assert_int_equal(s.word, bad);
	assert_false(s.adopted);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), good);
	s = recv_offset_word_settle(&f->t);
	assert_int_equal(s.rule, rule);
	assert_int_equal(word_in_pool(f), good);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), good);
}

static void test_broken_words_put_back(void **state)
{
	struct fixture *f = *state;
	writer_stores(f, f->t.start + 500);
	assert_true(recv_offset_word_settle(&f->t).adopted);
	broken_word_put_back(f, f->t.end + 1, RECV_OFFSET_PAST_END);
	broken_word_put_back(f, UINT64_MAX, RECV_OFFSET_PAST_END);
	broken_word_put_back(f, f->t.start - 8, RECV_OFFSET_BEFORE_START);
	broken_word_put_back(f, 0, RECV_OFFSET_BEFORE_START);
	broken_word_put_back(f, f->t.start + 499, RECV_OFFSET_BACKWARDS);
	assert_int_equal(floor_in_pool(f), f->t.start + 500);
}

/* While a rotation seals the log, a word that moves, even forward within
 * the data range, breaks a rule: it is never adopted, and settle puts the
 * sealed end back (a --follow reader is never told of it). Once the seal
 * is over, a good word is adopted again. */
static void test_word_frozen_while_sealed(void **state)
{
	struct fixture *f = *state;
	writer_stores(f, f->t.start + 500);
	assert_true(recv_offset_word_adopt(&f->t).adopted);
	f->t.end_sealed = true;
	writer_stores(f, f->t.start + 500);
	assert_int_equal(recv_offset_word_adopt(&f->t).rule, RECV_OFFSET_OK);
	broken_word_put_back(f, f->t.start + 800, RECV_OFFSET_WHILE_SEALED);
	broken_word_put_back(f, f->t.end, RECV_OFFSET_WHILE_SEALED);
	broken_word_put_back(f, f->t.start + 499, RECV_OFFSET_BACKWARDS);
	assert_int_equal(floor_in_pool(f), f->t.start + 500);
	f->t.end_sealed = false;
	writer_stores(f, f->t.start + 800);
	assert_true(recv_offset_word_adopt(&f->t).adopted);
}

/* A writer flushed a broken word itself, then the host went down before
 * the receiver put it back: the next open puts back the floor, and
 * libpmemlog and --info's peek agree. */
static void test_crash_repair(void **state)
{
	struct fixture *f = *state;
	uint64_t start = f->t.start, end = f->t.end;
	writer_stores(f, start + 4096);
	assert_true(recv_offset_word_adopt(&f->t).adopted);
	const uint64_t bad[] = {end + 4096, start - 1, start + 100};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		writer_stores(f, bad[i]);
		reopen(f);
		assert_int_equal(word_in_pool(f), start + 4096);
		assert_int_equal(recv_pmem_target_write_offset(&f->t),
				 start + 4096);
		struct recv_pool_peek p;
		recv_pmem_target_close(&f->t);
		writer_stores_closed(f->path, bad[i]);
		assert_int_equal(recv_pool_peek(f->path, &p, 0), 0);
		assert_int_equal(p.write, start + 4096);
		reopen(f);
	}
	recv_pmem_target_close(&f->t);
	struct recv_pmdk_log *plp = recv_pmdk_log_open(f->path);
	assert_non_null(plp);
	assert_int_equal(recv_pmdk_log_tell(plp), 4096);
	recv_pmdk_log_close(plp);
	struct rs_error err = {0};
	assert_int_equal(recv_pmem_target_open(&f->t, f->path, 0, &err), 0);
}

/* A good word past the floor is kept at open, and becomes the floor. */
static void test_crash_keeps_good_word(void **state)
{
	struct fixture *f = *state;
	uint64_t start = f->t.start;
	writer_stores(f, start + 64);
	assert_true(recv_offset_word_adopt(&f->t).adopted);
	writer_stores(f, start + 128); /* flushed by the writer, unseen */
	reopen(f);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), start + 128);
	assert_int_equal(floor_in_pool(f), start + 128);
}

/* The receiver moving the offset back (a rotation, an emptied log) lowers
 * the floor first: the next open keeps the lower word. */
static void test_commit_back_lowers_floor(void **state)
{
	struct fixture *f = *state;
	uint64_t start = f->t.start;
	writer_stores(f, start + 2048);
	assert_true(recv_offset_word_settle(&f->t).adopted);
	recv_pmem_target_commit(&f->t, start);
	assert_int_equal(floor_in_pool(f), start);
	reopen(f);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), start);
	/* and a grant to a one-sided writer raises it again */
	recv_pmem_target_commit(&f->t, start + 10);
	assert_int_equal(floor_in_pool(f), start);
	recv_offset_floor_raise(&f->t);
	assert_int_equal(floor_in_pool(f), start + 10);
}

/* The receiver's record changed behind our back (a release before this
 * one, which knows no floor, rotated or emptied the log: the word went
 * back): the floor no longer counts, and the word stays. */
static void test_floor_of_an_older_epoch(void **state)
{
	struct fixture *f = *state;
	uint64_t start = f->t.start;
	writer_stores(f, start + 4096);
	assert_true(recv_offset_word_settle(&f->t).adopted);
	/* as an older receiver's rotation: its record, then the word back */
	struct log_state st = {.seq = 1, .base = 4096};
	uint8_t slot[RECV_LOG_STATE_SLOT];
	unsigned i;
	log_state_encode(&st, f->t.uuid, slot, &i);
	memcpy(f->t.base + RECV_LOG_STATE_OFFSET + i * RECV_LOG_STATE_SLOT,
	       slot, sizeof(slot));
	writer_stores(f, start);
	reopen(f);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), start);
	assert_int_equal(floor_in_pool(f), start); /* armed anew */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rules),
	    cmocka_unit_test(test_floor_record),
	    cmocka_unit_test(test_floor_of_an_older_release),
	    cmocka_unit_test(test_at_open),
	    cmocka_unit_test_setup_teardown(test_good_word_adopted, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_broken_words_put_back, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_word_frozen_while_sealed,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_crash_repair, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_crash_keeps_good_word, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_commit_back_lowers_floor,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_floor_of_an_older_epoch, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
