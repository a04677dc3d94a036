/* Control message codec: round trips, truncation, and malformed fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "proto/message.h"

#include <string.h>

static const struct rs_msg commit = {
    .type = RS_MSG_COMMIT, .seq = 7, .offset = 8192, .length = 4096};

static void round_trip(void **state)
{
	(void)state;
	uint8_t buf[RS_MSG_SIZE];
	struct rs_msg out;
	assert_int_equal(rs_msg_encode(&commit, buf, sizeof(buf)), RS_MSG_SIZE);
	assert_int_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.type, RS_MSG_COMMIT);
	assert_int_equal(out.seq, 7);
	assert_int_equal(out.offset, 8192);
	assert_int_equal(out.length, 4096);

	struct rs_msg staged = commit;
	staged.type = RS_MSG_STAGED_COMMIT;
	staged.ring_offset = 1u << 20;
	rs_msg_encode(&staged, buf, sizeof(buf));
	assert_int_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.ring_offset, 1u << 20);

	struct rs_msg hash = {.type = RS_MSG_HASH_DONE,
			      .seq = 4,
			      .offset = 8192,
			      .length = 1u << 20,
			      .hash = 0x0123456789abcdefull};
	rs_msg_encode(&hash, buf, sizeof(buf));
	assert_int_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	assert_true(out.hash == 0x0123456789abcdefull);

	struct rs_msg done = {.type = RS_MSG_COMMIT_DONE,
			      .status = RS_MSG_NOT_CONTIGUOUS,
			      .seq = 9,
			      .offset = 12288};
	rs_msg_encode(&done, buf, sizeof(buf));
	assert_int_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.status, RS_MSG_NOT_CONTIGUOUS);
	assert_int_equal(out.offset, 12288);
}

static void auth_answer_round_trip(void **state)
{
	(void)state;
	struct rs_msg in = {.type = RS_MSG_AUTH}, out;
	for (int i = 0; i < RS_AUTH_MAC_SIZE; i++)
		in.mac[i] = (uint8_t)(0xa0 + i);
	uint8_t buf[RS_MSG_SIZE];
	assert_int_equal(rs_msg_encode(&in, buf, sizeof(buf)), RS_MSG_SIZE);
	assert_int_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.type, RS_MSG_AUTH);
	assert_memory_equal(out.mac, in.mac, RS_AUTH_MAC_SIZE);
	buf[5] = 1; /* a status */
	assert_int_not_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
}

static void truncated_fails(void **state)
{
	(void)state;
	uint8_t buf[RS_MSG_SIZE];
	struct rs_msg out;
	rs_msg_encode(&commit, buf, sizeof(buf));
	for (size_t cut = 0; cut < RS_MSG_SIZE; cut++)
		assert_int_not_equal(rs_msg_decode(buf, cut, &out, 0), 0);
	assert_int_equal(rs_msg_encode(&commit, buf, RS_MSG_SIZE - 1), 0);
}

static int decode(struct rs_msg m)
{
	uint8_t buf[RS_MSG_SIZE];
	struct rs_msg out;
	rs_msg_encode(&m, buf, sizeof(buf));
	return rs_msg_decode(buf, sizeof(buf), &out, 0);
}

static void malformed_fails(void **state)
{
	(void)state;
	struct rs_msg m = commit;
	m.type = 0;
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m.type = 200;
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = commit;
	m.length = 0;
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = commit;
	m.offset = UINT64_MAX - 10; /* offset + length wraps */
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = commit;
	m.status = RS_MSG_OUT_OF_RANGE; /* a request never carries one */
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = commit;
	m.ring_offset = 4096; /* only staged commits have a ring offset */
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = commit;
	m.type = RS_MSG_STAGED_COMMIT;
	m.hash = 1; /* only a hash reply carries one */
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = commit;
	m.type = RS_MSG_HASH;
	m.ring_offset = 64; /* a hash request has no ring */
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m.type = RS_MSG_READ_STAGE; /* a ring read does */
	assert_int_equal(0, decode(m));
	m = (struct rs_msg){.type = RS_MSG_COMMIT_DONE, .status = 99};
	assert_int_equal(RS_E_MALFORMED, decode(m));
	/* An archive's status answers a rebase only. */
	m = (struct rs_msg){.type = RS_MSG_COMMIT_DONE,
			    .status = RS_MSG_ARCHIVE_DISK_FULL};
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m.type = RS_MSG_REBASE_DONE;
	assert_int_equal(0, decode(m));
	m.status = RS_MSG_STATUS_LAST + 1;
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = (struct rs_msg){.type = RS_MSG_REBASE, .offset = 1u << 20};
	assert_int_equal(0, decode(m));
	m.length = 4096; /* a rebase names where the pool ends, no range */
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = (struct rs_msg){.type = RS_MSG_REBASE,
			    .status = RS_MSG_ARCHIVE_FAILED};
	assert_int_equal(RS_E_MALFORMED, decode(m));
	/* A reader's wait: now or later, and the log's state in the reply:
	 * first <= base <= end, the content's number in hash. */
	m = (struct rs_msg){.type = RS_MSG_WAIT, .offset = 5, .length = 1};
	assert_int_equal(0, decode(m));
	m.length = 2;
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = (struct rs_msg){.type = RS_MSG_WAIT_DONE,
			    .offset = 300,
			    .length = 200,
			    .ring_offset = 100,
			    .hash = 7};
	assert_int_equal(0, decode(m));
	m.ring_offset = 201;
	assert_int_equal(RS_E_MALFORMED, decode(m));
}

/* Window keys: a commit names the key it wrote with, the replies that
 * hand out keys carry them, and no other message carries one. */
static void window_keys(void **state)
{
	(void)state;
	struct rs_msg m = commit, out;
	m.key = 0x1234;
	uint8_t buf[RS_MSG_SIZE];
	rs_msg_encode(&m, buf, sizeof(buf));
	assert_int_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.key, 0x1234);
	assert_int_equal(buf[12], 0x34); /* little-endian at byte 12 */
	uint8_t carry[] = {RS_MSG_COMMIT_DONE, RS_MSG_WINDOW_DONE,
			   RS_MSG_KEEPALIVE,   RS_MSG_KEEPALIVE_DONE,
			   RS_MSG_REBASE_DONE, RS_MSG_REPLACE_DONE,
			   RS_MSG_SWITCH_DONE};
	for (size_t i = 0; i < sizeof(carry); i++) {
		m = (struct rs_msg){.type = carry[i], .key = 7};
		assert_int_equal(0, decode(m));
	}
	uint8_t bare[] = {RS_MSG_STAGED_COMMIT, RS_MSG_HASH, RS_MSG_WAIT,
			  RS_MSG_WINDOW, RS_MSG_REBASE};
	for (size_t i = 0; i < sizeof(bare); i++) {
		bool ranged =
		    bare[i] == RS_MSG_STAGED_COMMIT || bare[i] == RS_MSG_HASH;
		m = (struct rs_msg){.type = bare[i], .length = ranged ? 64 : 0};
		assert_int_equal(0, decode(m));
		m.key = 7;
		assert_int_equal(RS_E_MALFORMED, decode(m));
	}
	m = (struct rs_msg){.type = RS_MSG_WINDOW};
	assert_int_equal(0, decode(m));
	m.offset = 8192; /* a request for a key names no range */
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = (struct rs_msg){
	    .type = RS_MSG_WINDOW_DONE, .offset = 8192, .length = 4096};
	assert_int_equal(RS_E_MALFORMED, decode(m)); /* no key */
	m.key = 9;
	assert_int_equal(0, decode(m));
	m.length = UINT64_MAX;
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = (struct rs_msg){.type = RS_MSG_WINDOW_DONE,
			    .status = RS_MSG_BAD_REQUEST};
	assert_int_equal(0, decode(m));
}

/* A reply that hands out a key says where its window ends, in the last
 * word (a hash's place: no keyed message has a hash); a request for a key
 * may say how much room it needs. */
static void window_ends(void **state)
{
	(void)state;
	struct rs_msg m = {.type = RS_MSG_COMMIT_DONE,
			   .offset = 8192,
			   .key = 9,
			   .key_end = 0x10000 + 8192},
		      out;
	uint8_t buf[RS_MSG_SIZE];
	assert_int_equal(rs_msg_encode(&m, buf, sizeof(buf)), RS_MSG_SIZE);
	assert_int_equal(buf[40], 0x00);
	assert_int_equal(buf[41], 0x20);
	assert_int_equal(buf[42], 0x01); /* little-endian at byte 40 */
	assert_int_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.key_end, 0x12000);
	assert_int_equal(out.hash, 0);
	m.key = 0; /* an end with no key to end */
	assert_int_equal(RS_E_MALFORMED, decode(m));
	m = (struct rs_msg){.type = RS_MSG_KEEPALIVE, .key = 9, .key_end = 1};
	assert_int_equal(RS_E_MALFORMED, decode(m)); /* requests name none */
	m = (struct rs_msg){.type = RS_MSG_HASH_DONE, .hash = 77};
	assert_int_equal(rs_msg_encode(&m, buf, sizeof(buf)), RS_MSG_SIZE);
	assert_int_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.hash, 77);
	assert_int_equal(out.key_end, 0);
	m = (struct rs_msg){.type = RS_MSG_WINDOW, .length = 1u << 20};
	assert_int_equal(0, decode(m));
}

static void header_fields(void **state)
{
	(void)state;
	uint8_t buf[RS_MSG_SIZE];
	struct rs_msg out;
	rs_msg_encode(&commit, buf, sizeof(buf));
	buf[0] ^= 0xff; /* magic */
	assert_int_not_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	rs_msg_encode(&commit, buf, sizeof(buf));
	buf[6] = 2; /* a flag nobody knows */
	assert_int_not_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	buf[6] = 0;
	buf[7] = 1;
	assert_int_not_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	/* LONE rides in a commit, at byte 6, and nowhere else */
	struct rs_msg lone = commit;
	lone.flags = RS_MSG_LONE;
	rs_msg_encode(&lone, buf, sizeof(buf));
	assert_int_equal(buf[6], 1);
	assert_int_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.flags, RS_MSG_LONE);
	struct rs_msg done = {.type = RS_MSG_COMMIT_DONE, .flags = RS_MSG_LONE};
	rs_msg_encode(&done, buf, sizeof(buf));
	assert_int_not_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
	struct rs_msg ka = {.type = RS_MSG_WAIT};
	rs_msg_encode(&ka, buf, sizeof(buf));
	buf[12] = 1; /* a key where none goes */
	assert_int_not_equal(rs_msg_decode(buf, sizeof(buf), &out, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(round_trip),
	    cmocka_unit_test(auth_answer_round_trip),
	    cmocka_unit_test(truncated_fails),
	    cmocka_unit_test(malformed_fails),
	    cmocka_unit_test(window_keys),
	    cmocka_unit_test(window_ends),
	    cmocka_unit_test(header_fields),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
