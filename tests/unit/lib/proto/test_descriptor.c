/* Descriptor codecs: round trips, and every truncated, padded and
 * out-of-range case a peer could send. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "proto/descriptor.h"
#include "proto/pool_layout.h"

#include <string.h>

static struct rs_accept_info valid_info(void)
{
	struct rs_accept_info info = {
	    .peer_flags = RS_PEER_DIRECT_WRITE_TO_PMEM | RS_PEER_ARCHIVE,
	    .methods = RS_METHOD_BIT(RS_METHOD_APM) |
		       RS_METHOD_BIT(RS_METHOD_GPSPM) |
		       RS_METHOD_BIT(RS_METHOD_STAGED),
	    .credits = 4,
	    .data = {.addr = 0x7f0000002000ull,
		     .length = (64u << 20) - 8192,
		     .rkey = 0x1234,
		     .usage = RS_MR_USAGE_WRITE_DST},
	    .write_offset = {.addr = 0x7f0000001010ull,
			     .length = 8,
			     .rkey = 0x99,
			     .usage =
				 RS_MR_USAGE_WRITE_DST | RS_MR_USAGE_READ_SRC},
	    .staging = {.addr = 0x5500000000ull,
			.length = 4u << 20,
			.rkey = 0x77,
			.usage = RS_MR_USAGE_WRITE_DST},
	    .data_read = {.addr = 0x7f0000002000ull,
			  .length = (64u << 20) - 8192,
			  .rkey = 0x4321,
			  .usage = RS_MR_USAGE_READ_SRC},
	    .staging_slot_size = 1u << 20,
	    .start_offset = 8192,
	    .end_offset = 64u << 20,
	    .write_offset_value = 8192 + 100,
	    .peer_timeout_ms = 10000,
	    .log_base = 3u << 20,
	};
	for (int i = 0; i < 16; i++) {
		info.pool_uuid[i] = (uint8_t)(i * 7 + 1);
		info.token.bytes[i] = (uint8_t)(0xa0 + i);
	}
	return info;
}

static size_t encode(const struct rs_accept_info *info, uint8_t *buf)
{
	memset(buf, 0, RS_ACCEPT_PRIVATE_MAX);
	return rs_accept_info_encode(info, buf, RS_ACCEPT_PRIVATE_MAX);
}

static void accept_round_trip(void **state)
{
	(void)state;
	struct rs_accept_info in = valid_info(), out;
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX];
	size_t len = encode(&in, buf);
	assert_int_equal(len, RS_ACCEPT_INFO_SIZE);
	assert_true(len <= RS_ACCEPT_PRIVATE_MAX);
	/* The CM pads to its full size: decoding the padded buffer works. */
	assert_int_equal(rs_accept_info_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.data.addr, in.data.addr);
	assert_memory_equal(&out.token, &in.token, sizeof(in.token));
	assert_int_equal(out.peer_timeout_ms, 10000);
	assert_int_equal(out.log_base, 3u << 20);
	assert_int_equal(out.peer_flags,
			 RS_PEER_DIRECT_WRITE_TO_PMEM | RS_PEER_ARCHIVE);
	assert_int_equal(out.data.length, in.data.length);
	assert_int_equal(out.data.rkey, in.data.rkey);
	assert_int_equal(out.write_offset.addr, in.write_offset.addr);
	assert_int_equal(out.staging.rkey, in.staging.rkey);
	assert_int_equal(out.data_read.rkey, 0x4321);
	assert_int_equal(out.data_read.length, in.data_read.length);
	assert_int_equal(out.staging_slot_size, in.staging_slot_size);
	assert_int_equal(out.start_offset, 8192);
	assert_int_equal(out.end_offset, 64u << 20);
	assert_int_equal(out.write_offset_value, 8292);
	assert_int_equal(out.credits, 4);
	assert_int_equal(out.methods, in.methods);
	assert_memory_equal(out.pool_uuid, in.pool_uuid, 16);
}

static void accept_is_little_endian(void **state)
{
	(void)state;
	struct rs_accept_info in = valid_info();
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX];
	encode(&in, buf);
	/* magic "RPSH", version 1, length, then flags and methods. */
	assert_memory_equal(buf, "RPSH", 4);
	assert_int_equal(buf[4], RS_PROTO_VERSION);
	assert_int_equal(buf[5], RS_ACCEPT_INFO_SIZE);
	/* data.addr starts at byte 12, least significant byte first. */
	assert_int_equal(buf[12], 0x00);
	assert_int_equal(buf[13], 0x20);
	assert_int_equal(buf[17], 0x7f);
}

static void accept_every_truncation_fails(void **state)
{
	(void)state;
	struct rs_accept_info in = valid_info(), out;
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX];
	size_t len = encode(&in, buf);
	for (size_t cut = 0; cut < len; cut++)
		assert_int_not_equal(rs_accept_info_decode(buf, cut, &out, 0),
				     0);
	assert_int_equal(rs_accept_info_decode(buf, len, &out, 0), 0);
}

static void accept_encode_refuses_small_buffer(void **state)
{
	(void)state;
	struct rs_accept_info in = valid_info();
	uint8_t buf[RS_ACCEPT_INFO_SIZE - 1];
	assert_int_equal(rs_accept_info_encode(&in, buf, sizeof(buf)), 0);
}

/* Decodes info after a mutation applied to the encoded or the plain form. */
static int decode_mutated(struct rs_accept_info info)
{
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX];
	struct rs_accept_info out;
	encode(&info, buf);
	return rs_accept_info_decode(buf, sizeof(buf), &out, 0);
}

static void accept_rejects_bad_fields(void **state)
{
	(void)state;
	struct rs_accept_info i;

	i = valid_info();
	i.methods = 0;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.methods |= 0x80;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.credits = 0;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.peer_timeout_ms = RS_PEER_TIMEOUT_MIN_MS - 1;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.peer_flags = 0x80;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.write_offset_value = i.end_offset + 1;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.write_offset_value = i.start_offset - 1;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.start_offset = 0; /* data in the pool header */
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.end_offset = i.start_offset;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.data.length += 1; /* region larger than the log */
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.data.usage = 0;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.data.usage = 0x40;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.data.addr = UINT64_MAX - 10; /* wraps */
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.write_offset.length = 16;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.peer_flags = 0; /* APM without direct write to PMem */
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.data_read.length = i.data.length + 1; /* readable past the log */
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.data_read.usage = RS_MR_USAGE_WRITE_DST;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.staging_read = i.staging; /* readable ring without read usage */
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i.staging_read.usage = RS_MR_USAGE_READ_SRC;
	assert_int_equal(decode_mutated(i), 0);
	i.staging_read.length /= 2; /* not the whole ring */
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.staging_slot_size = 0;
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.staging_slot_size = 3u << 20; /* ring not a multiple of slots */
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
	i = valid_info();
	i.credits = 8; /* more credits than ring slots */
	assert_int_equal(decode_mutated(i), RS_E_MALFORMED);
}

static void accept_staged_only_needs_no_data_region(void **state)
{
	(void)state;
	struct rs_accept_info i = valid_info();
	i.methods = RS_METHOD_BIT(RS_METHOD_STAGED);
	i.peer_flags = 0;
	memset(&i.data, 0, sizeof(i.data));
	memset(&i.write_offset, 0, sizeof(i.write_offset));
	assert_int_equal(decode_mutated(i), 0);
}

/* A reading session's grant: read regions only; any method or region to
 * write in a grant that says so is malformed. */
static void accept_read_only_grant(void **state)
{
	(void)state;
	struct rs_accept_info i = valid_info();
	i.peer_flags = RS_PEER_READ_ONLY;
	i.methods = 0;
	i.data_read = i.data;
	i.data_read.usage = RS_MR_USAGE_READ_SRC;
	i.staging_read = i.staging;
	i.staging_read.usage = RS_MR_USAGE_READ_SRC;
	memset(&i.data, 0, sizeof(i.data));
	memset(&i.write_offset, 0, sizeof(i.write_offset));
	memset(&i.staging, 0, sizeof(i.staging));
	assert_int_equal(decode_mutated(i), 0);
	/* Readable in place: the committed prefix, any of the log. */
	struct rs_accept_info prefix = i;
	prefix.data_read.length = 4096;
	assert_int_equal(decode_mutated(prefix), 0);
	struct rs_accept_info bad = i;
	bad.methods = RS_METHOD_BIT(RS_METHOD_STAGED);
	assert_int_equal(decode_mutated(bad), RS_E_MALFORMED);
	bad = i;
	bad.data = valid_info().data;
	assert_int_equal(decode_mutated(bad), RS_E_MALFORMED);
	bad = i;
	bad.write_offset = valid_info().write_offset;
	assert_int_equal(decode_mutated(bad), RS_E_MALFORMED);
	bad = i;
	bad.staging = valid_info().staging;
	assert_int_equal(decode_mutated(bad), RS_E_MALFORMED);
	bad = i; /* without the flag, a grant of nothing to write */
	bad.peer_flags = 0;
	assert_int_equal(decode_mutated(bad), RS_E_MALFORMED);
}

/* A window grant: the data range without a key, gpspm without apm; a key,
 * apm, a missing gpspm or a read-only flag with it is malformed. */
static void accept_window_grant(void **state)
{
	(void)state;
	struct rs_accept_info i = valid_info();
	i.peer_flags = RS_PEER_WINDOWS;
	i.methods =
	    RS_METHOD_BIT(RS_METHOD_GPSPM) | RS_METHOD_BIT(RS_METHOD_STAGED);
	i.data.rkey = 0;
	memset(&i.write_offset, 0, sizeof(i.write_offset));
	assert_int_equal(decode_mutated(i), 0);
	struct rs_accept_info bad = i;
	bad.data.rkey = 0x1234;
	assert_int_equal(decode_mutated(bad), RS_E_MALFORMED);
	bad = i;
	bad.methods = RS_METHOD_BIT(RS_METHOD_STAGED);
	assert_int_equal(decode_mutated(bad), RS_E_MALFORMED);
	bad = valid_info();
	bad.peer_flags |= RS_PEER_WINDOWS; /* with apm */
	bad.data.rkey = 0;
	assert_int_equal(decode_mutated(bad), RS_E_MALFORMED);
}

static void header_checks(void **state)
{
	(void)state;
	struct rs_accept_info in = valid_info(), out;
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX];

	encode(&in, buf);
	buf[0] ^= 1; /* magic */
	assert_int_not_equal(rs_accept_info_decode(buf, sizeof(buf), &out, 0),
			     0);

	encode(&in, buf);
	buf[4] = RS_PROTO_VERSION + 1;
	struct rs_error why = {0};
	assert_int_equal(rs_accept_info_decode(buf, sizeof(buf), &out, &why),
			 RS_E_VERSION);
	assert_non_null(strstr(why.msg, "version"));

	encode(&in, buf);
	buf[5] = RS_ACCEPT_INFO_SIZE + 1; /* claims a longer encoding */
	assert_int_not_equal(rs_accept_info_decode(buf, sizeof(buf), &out, 0),
			     0);

	encode(&in, buf);
	buf[10] = 1; /* reserved */
	assert_int_not_equal(rs_accept_info_decode(buf, sizeof(buf), &out, 0),
			     0);

	memset(buf, 0, sizeof(buf)); /* all padding, nothing sent */
	assert_int_not_equal(rs_accept_info_decode(buf, sizeof(buf), &out, 0),
			     0);
}

static void connect_round_trip_and_checks(void **state)
{
	(void)state;
	struct rs_connect_req in = {.flags = RS_CONNECT_TRUNCATE,
				    .method = RS_METHOD_STAGED,
				    .methods = RS_METHOD_ALL},
			      out;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX] = {0};
	size_t len = rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(len, RS_CONNECT_REQ_SIZE);
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.flags, RS_CONNECT_TRUNCATE);
	assert_int_equal(out.method, RS_METHOD_STAGED);
	assert_int_equal(out.methods, RS_METHOD_ALL);
	for (size_t cut = 0; cut < len; cut++)
		assert_int_not_equal(rs_connect_req_decode(buf, cut, &out, 0),
				     0);

	in.flags = 0x80;
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_not_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0),
			     0);
	in.flags = 0;
	in.method = RS_METHOD_COUNT;
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_not_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0),
			     0);

	/* A writer says what it can do: something known, and the method it
	 * insists on among it; a reader may say nothing. */
	in.method = RS_METHOD_STAGED;
	const uint8_t bad_methods[] = {0, 0x80, 0x1,
				       RS_METHOD_BIT(RS_METHOD_GPSPM)};
	for (size_t k = 0; k < sizeof(bad_methods); k++) {
		in.methods = bad_methods[k];
		rs_connect_req_encode(&in, buf, sizeof(buf));
		assert_int_equal(
		    rs_connect_req_decode(buf, sizeof(buf), &out, 0),
		    RS_E_MALFORMED);
	}
	in.methods =
	    RS_METHOD_BIT(RS_METHOD_GPSPM) | RS_METHOD_BIT(RS_METHOD_STAGED);
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);

	/* A takeover carries its token; a token without one is malformed. */
	in.method = RS_METHOD_AUTO;
	in.flags = RS_CONNECT_TAKEOVER;
	memset(in.token.bytes, 0x3c, sizeof(in.token.bytes));
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);
	assert_memory_equal(&out.token, &in.token, sizeof(in.token));
	in.flags = 0;
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0),
			 RS_E_MALFORMED);

	/* A reader asks nothing only a writer may. */
	memset(in.token.bytes, 0, sizeof(in.token.bytes));
	in.flags = RS_CONNECT_VERIFY | RS_CONNECT_AUTH;
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);
	const uint8_t writer_only[] = {RS_CONNECT_TRUNCATE, RS_CONNECT_REPLACE,
				       RS_CONNECT_TAKEOVER};
	for (size_t k = 0; k < sizeof(writer_only); k++) {
		in.flags = RS_CONNECT_VERIFY | writer_only[k];
		memset(in.token.bytes,
		       writer_only[k] == RS_CONNECT_TAKEOVER ? 0x3c : 0,
		       sizeof(in.token.bytes));
		rs_connect_req_encode(&in, buf, sizeof(buf));
		assert_int_equal(
		    rs_connect_req_decode(buf, sizeof(buf), &out, 0),
		    RS_E_MALFORMED);
	}
}

/* Since protocol version 10: the methods the sender can do at offset 8,
 * the log name in the 31 bytes at offset 25, the name then zeros (none
 * after a name of 31). */
#define METHODS_AT 8
#define NAME_AT 25
#define NAME_FIELD RS_LOG_NAME_MAX

static void connect_name_round_trip(void **state)
{
	(void)state;
	assert_int_equal(RS_PROTO_VERSION, 10);
	assert_int_equal(RS_CONNECT_REQ_SIZE, 56);
	assert_int_equal(NAME_AT + NAME_FIELD, RS_CONNECT_REQ_SIZE);
	struct rs_connect_req in = {.flags = RS_CONNECT_VERIFY,
				    .method = RS_METHOD_AUTO,
				    .log_name = "app.2024_x-y"},
			      out;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX] = {0};
	assert_int_equal(rs_connect_req_encode(&in, buf, sizeof(buf)),
			 RS_CONNECT_REQ_SIZE);
	assert_int_equal(buf[4], RS_PROTO_VERSION);
	assert_int_equal(buf[5], RS_CONNECT_REQ_SIZE);
	assert_int_equal(buf[METHODS_AT], 0);
	assert_memory_equal(buf + NAME_AT, "app.2024_x-y", 13);
	for (size_t i = NAME_AT + 13; i < RS_CONNECT_REQ_SIZE; i++)
		assert_int_equal(buf[i], 0);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);
	assert_string_equal(out.log_name, "app.2024_x-y");
	assert_int_equal(out.flags, RS_CONNECT_VERIFY);

	/* The longest name, and no name at all. */
	memset(in.log_name, 'n', RS_LOG_NAME_MAX);
	in.log_name[RS_LOG_NAME_MAX] = '\0';
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(strlen(out.log_name), RS_LOG_NAME_MAX);
	in.log_name[0] = '\0';
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);
	assert_string_equal(out.log_name, "");
}

/* Decodes a valid request whose name field starts with these bytes. */
static int decode_with_name_bytes(const void *bytes, size_t len)
{
	struct rs_connect_req in = {.method = RS_METHOD_GPSPM,
				    .methods = RS_METHOD_ALL},
			      out;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX] = {0};
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(buf[METHODS_AT], RS_METHOD_ALL);
	memcpy(buf + NAME_AT, bytes, len);
	struct rs_error why = {0};
	int rc = rs_connect_req_decode(buf, sizeof(buf), &out, &why);
	if (rc)
		assert_non_null(strstr(why.msg, "log name"));
	return rc;
}

static void connect_name_checks(void **state)
{
	(void)state;
	assert_int_equal(decode_with_name_bytes("app", 4), 0);
	/* 31 letters fill the field: no NUL needed. */
	uint8_t full[NAME_FIELD];
	memset(full, 'a', sizeof(full));
	assert_int_equal(decode_with_name_bytes(full, sizeof(full)), 0);
	/* Bytes after the NUL, right after it and at the field's end. */
	assert_int_equal(decode_with_name_bytes("app\0x", 5), RS_E_MALFORMED);
	uint8_t tail[NAME_FIELD] = {'a', 'p', 'p'};
	tail[NAME_FIELD - 1] = 1;
	assert_int_equal(decode_with_name_bytes(tail, sizeof(tail)),
			 RS_E_MALFORMED);
	/* Characters outside the rule, and the forbidden first ones. */
	const char *bad[] = {"bad name",  "../pool", "a/b",  "caf\xc3\xa9",
			     "tab\there", ".hidden", "-opt", "x,y"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(decode_with_name_bytes(bad[i], strlen(bad[i])),
				 RS_E_MALFORMED);
	/* The rule itself. */
	assert_true(rs_log_name_valid("a"));
	assert_true(rs_log_name_valid("A.b_c-9"));
	assert_false(rs_log_name_valid(""));
	assert_false(rs_log_name_valid("abcdefghijklmnopqrstuvwxyz012345"));
	assert_true(rs_log_name_valid("abcdefghijklmnopqrstuvwxyz01234"));
}

static void reject_round_trip(void **state)
{
	(void)state;
	uint8_t buf[RS_REJECT_PRIVATE_MAX] = {0};
	struct rs_reject_info in = {.reason = RS_REJECT_METHOD,
				    .methods = RS_METHOD_BIT(RS_METHOD_STAGED)},
			      out;
	assert_int_equal(rs_reject_encode(&in, buf, sizeof(buf)),
			 RS_REJECT_SIZE);
	assert_int_equal(rs_reject_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.reason, RS_REJECT_METHOD);
	assert_int_equal(out.methods, RS_METHOD_BIT(RS_METHOD_STAGED));
	assert_non_null(
	    strstr(rs_reject_reason_str(RS_REJECT_BUSY), "another sender"));
	for (size_t cut = 0; cut < RS_REJECT_SIZE; cut++)
		assert_int_not_equal(rs_reject_decode(buf, cut, &out, 0), 0);
	in.methods = 0x80;
	rs_reject_encode(&in, buf, sizeof(buf));
	assert_int_not_equal(rs_reject_decode(buf, sizeof(buf), &out, 0), 0);
}

/* Protocol version 10: the versions the receiver speaks at bytes 8 and 9,
 * when to ask again (u16) at 10, then the names a refused sender may use,
 * 129 bytes at offset 12 (at 8 in version 9). */
#define LOGS_AT 12
#define LOGS_FIELD (RS_REJECT_LOGS_MAX + 1)

static void reject_logs_round_trip(void **state)
{
	(void)state;
	assert_int_equal(RS_REJECT_SIZE, 141);
	assert_int_equal(LOGS_AT + LOGS_FIELD, RS_REJECT_SIZE);
	assert_int_equal(RS_REJECT_NO_SUCH_LOG, 7);
	assert_int_equal(RS_REJECT_NAME_NEEDED, 8);
	assert_int_equal(RS_REJECT_LIMIT, 9);
	uint8_t buf[RS_REJECT_PRIVATE_MAX] = {0};
	struct rs_reject_info in = {.reason = RS_REJECT_NO_SUCH_LOG,
				    .logs = "app,audit.2024,db_main,..."},
			      out;
	assert_int_equal(rs_reject_encode(&in, buf, sizeof(buf)),
			 RS_REJECT_SIZE);
	assert_int_equal(buf[6], RS_REJECT_NO_SUCH_LOG);
	assert_int_equal(buf[8], RS_PROTO_VERSION_MIN);
	assert_int_equal(buf[9], RS_PROTO_VERSION);
	assert_memory_equal(buf + LOGS_AT, in.logs, strlen(in.logs) + 1);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(rs_reject_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.reason, RS_REJECT_NO_SUCH_LOG);
	assert_int_equal(out.methods, 0);
	assert_string_equal(out.logs, "app,audit.2024,db_main,...");

	/* A full field: 128 characters and the NUL. */
	memset(in.logs, 'x', RS_REJECT_LOGS_MAX);
	in.logs[RS_REJECT_LOGS_MAX] = '\0';
	in.reason = RS_REJECT_NAME_NEEDED;
	rs_reject_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_reject_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(strlen(out.logs), RS_REJECT_LOGS_MAX);

	/* Every reason has words, the new ones included. */
	assert_non_null(strstr(rs_reject_reason_str(RS_REJECT_NO_SUCH_LOG),
			       "no log of that name"));
	assert_non_null(
	    strstr(rs_reject_reason_str(RS_REJECT_NAME_NEEDED), "HOST/NAME"));
	assert_non_null(
	    strstr(rs_reject_reason_str(RS_REJECT_LIMIT), "max-senders"));
	assert_non_null(
	    strstr(rs_reject_reason_str(RS_REJECT_STOPPING), "stopping"));
}

/* A sender under --retry tries again after these, and only these: a log
 * that is not there will not appear by retrying, but a receiver going
 * down comes back (a request refused as "no such log" while the receiver
 * stopped once ended a stream under --retry). */
static void reject_reasons_worth_retrying(void **state)
{
	(void)state;
	assert_int_equal(RS_REJECT_STOPPING, 10);
	assert_true(rs_reject_reason_passes(RS_REJECT_BUSY));
	assert_true(rs_reject_reason_passes(RS_REJECT_LIMIT));
	assert_true(rs_reject_reason_passes(RS_REJECT_STOPPING));
	for (unsigned r = 0; r < 256; r++) {
		if (r != RS_REJECT_BUSY && r != RS_REJECT_LIMIT &&
		    r != RS_REJECT_STOPPING && r != RS_REJECT_STARTING)
			assert_false(rs_reject_reason_passes((uint8_t)r));
	}
}

/* Decodes a valid reject whose logs field starts with these bytes. */
static int decode_with_logs_bytes(const void *bytes, size_t len)
{
	struct rs_reject_info in = {.reason = RS_REJECT_NO_SUCH_LOG}, out;
	uint8_t buf[RS_REJECT_PRIVATE_MAX] = {0};
	rs_reject_encode(&in, buf, sizeof(buf));
	memcpy(buf + LOGS_AT, bytes, len);
	return rs_reject_decode(buf, sizeof(buf), &out, 0);
}

static void reject_bad_logs(void **state)
{
	(void)state;
	assert_int_equal(decode_with_logs_bytes("a,b", 4), 0);
	/* What the sender prints must be plain names and commas. */
	const char *bad[] = {"a b", "a;b", "app\n", "\x1b[31m", "a/b"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(decode_with_logs_bytes(bad[i], strlen(bad[i])),
				 RS_E_MALFORMED);
	uint8_t full[LOGS_FIELD];
	memset(full, 'a', sizeof(full)); /* no NUL */
	assert_int_equal(decode_with_logs_bytes(full, sizeof(full)),
			 RS_E_MALFORMED);
	assert_int_equal(decode_with_logs_bytes("a\0b", 3), RS_E_MALFORMED);
}

/* ---- protocol versions: a build speaks 9 and 10 ---- */

/* Version 9's request: no methods byte, the name a 32-byte text field at
 * byte 24; decoded as a writer that can do every method but flush (unless
 * it insists on flush). */
static void connect_version_9(void **state)
{
	(void)state;
	struct rs_connect_req in = {.version = 9,
				    .flags = RS_CONNECT_TAKEOVER,
				    .method = RS_METHOD_AUTO,
				    .methods = 0xff, /* not on the wire in 9 */
				    .log_name = "app"},
			      out;
	memset(in.token.bytes, 0x3c, sizeof(in.token.bytes));
	uint8_t buf[RS_CONNECT_PRIVATE_MAX] = {0};
	assert_int_equal(rs_connect_req_encode(&in, buf, sizeof(buf)),
			 RS_CONNECT_REQ_SIZE);
	assert_int_equal(buf[4], 9);
	assert_int_equal(buf[8], 0x3c); /* the token at byte 8 */
	assert_memory_equal(buf + 24, "app", 4);
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.version, 9);
	assert_string_equal(out.log_name, "app");
	assert_int_equal(out.methods,
			 RS_METHOD_ALL & ~RS_METHOD_BIT(RS_METHOD_FLUSH));
	in.method = RS_METHOD_FLUSH;
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.methods, RS_METHOD_ALL);
	/* a reader: nothing */
	in = (struct rs_connect_req){.version = 9, .flags = RS_CONNECT_VERIFY};
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.methods, 0);
	/* a 32-byte name field without its NUL is malformed in 9 */
	memset(buf + 24, 'a', 32);
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &out, 0),
			 RS_E_MALFORMED);
}

/* What a writer's request can use of an offer: what it can do; a version
 * 9 writer asking for no method takes flush when that is all there is
 * (0.3.0 receivers granted it), not when anything else is offered. */
static void a_version_9_writer_takes_flush_when_it_is_all(void **state)
{
	(void)state;
	const uint8_t flush = RS_METHOD_BIT(RS_METHOD_FLUSH);
	const uint8_t gpspm = RS_METHOD_BIT(RS_METHOD_GPSPM);
	uint8_t buf[RS_CONNECT_PRIVATE_MAX] = {0};
	struct rs_connect_req in = {.version = 9, .method = RS_METHOD_AUTO}, v9;
	rs_connect_req_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_connect_req_decode(buf, sizeof(buf), &v9, 0), 0);
	assert_int_equal(rs_connect_req_usable(&v9, flush), flush);
	assert_int_equal(rs_connect_req_usable(&v9, flush | gpspm), gpspm);
	/* asking for a method: what it asked, as before */
	struct rs_connect_req staged = v9;
	staged.method = RS_METHOD_STAGED;
	assert_int_equal(rs_connect_req_usable(&staged, flush), 0);
	/* version 10 says what it can do: no flush, none */
	struct rs_connect_req v10 = {
	    .version = 10, .method = RS_METHOD_AUTO, .methods = gpspm};
	assert_int_equal(rs_connect_req_usable(&v10, flush), 0);
	assert_int_equal(rs_connect_req_usable(&v10, flush | gpspm), gpspm);
}

/* Versions outside 9 to 10: RS_E_VERSION, the version read said; none is
 * encoded. */
static void versions_outside(void **state)
{
	(void)state;
	struct rs_connect_req in = {.methods = RS_METHOD_ALL}, out;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX] = {0};
	rs_connect_req_encode(&in, buf, sizeof(buf));
	const uint8_t outside[] = {0, 8, 11, 200, 255};
	for (size_t i = 0; i < sizeof(outside); i++) {
		buf[4] = outside[i];
		assert_int_equal(
		    rs_connect_req_decode(buf, sizeof(buf), &out, 0),
		    RS_E_VERSION);
		assert_int_equal(out.version, outside[i]);
	}
	in.version = 11;
	assert_int_equal(rs_connect_req_encode(&in, buf, sizeof(buf)), 0);
	assert_true(rs_proto_speaks(9) && rs_proto_speaks(10));
	assert_false(rs_proto_speaks(8) || rs_proto_speaks(11));
}

/* A grant, a challenge and a reject go in the version asked in. */
static void answers_in_the_version_asked(void **state)
{
	(void)state;
	uint8_t buf[RS_REJECT_PRIVATE_MAX] = {0};
	struct rs_reject_info rej = {.version = 9,
				     .reason = RS_REJECT_BUSY,
				     .logs = "a"},
			      out;
	assert_int_equal(rs_reject_encode(&rej, buf, sizeof(buf)),
			 RS_REJECT_SIZE - 4);
	assert_int_equal(buf[4], 9);
	assert_memory_equal(buf + 8, "a", 2); /* version 9: logs at 8 */
	assert_int_equal(rs_reject_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.version, 9);
	assert_int_equal(out.min_version, 9);
	assert_int_equal(out.max_version, 9);
	assert_string_equal(out.logs, "a");
	struct rs_challenge ch = {.version = 9}, ch_out;
	uint8_t cbuf[RS_ACCEPT_PRIVATE_MAX] = {0};
	rs_challenge_encode(&ch, cbuf, sizeof(cbuf));
	assert_int_equal(cbuf[4], 9);
	assert_int_equal(rs_challenge_decode(cbuf, sizeof(cbuf), &ch_out, 0),
			 0);
	assert_int_equal(ch_out.version, 9);
}

/* A log not open yet: when to ask again (version 10), which a version 9
 * sender is told as the receiver stopping (it retries after both). */
static void reject_starting(void **state)
{
	(void)state;
	uint8_t buf[RS_REJECT_PRIVATE_MAX] = {0};
	struct rs_reject_info in = {.reason = RS_REJECT_STARTING,
				    .retry_ms = 1234},
			      out;
	rs_reject_encode(&in, buf, sizeof(buf));
	assert_int_equal(buf[10] | buf[11] << 8, 1234);
	assert_int_equal(rs_reject_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.reason, RS_REJECT_STARTING);
	assert_int_equal(out.retry_ms, 1234);
	assert_true(rs_reject_reason_passes(RS_REJECT_STARTING));
	in.version = 9;
	rs_reject_encode(&in, buf, sizeof(buf));
	assert_int_equal(rs_reject_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.reason, RS_REJECT_STOPPING);
	assert_int_equal(out.retry_ms, 0);
}

/* A reject of a receiver newer than us: its reason, methods and versions
 * from the bytes version 10 keeps for every later one. */
static void newer_reject_read(void **state)
{
	(void)state;
	uint8_t buf[RS_REJECT_PRIVATE_MAX] = {0};
	struct rs_reject_info in = {.reason = RS_REJECT_VERSION}, out;
	rs_reject_encode(&in, buf, sizeof(buf));
	buf[4] = 12; /* as a version 12 receiver that speaks 11 and 12 */
	buf[5] = 150;
	buf[8] = 11;
	buf[9] = 12;
	assert_int_equal(rs_reject_decode(buf, sizeof(buf), &out, 0), 0);
	assert_int_equal(out.version, 12);
	assert_int_equal(out.reason, RS_REJECT_VERSION);
	assert_int_equal(out.min_version, 11);
	assert_int_equal(out.max_version, 12);
	buf[8] = 13; /* a range that does not hold its own version */
	assert_int_equal(rs_reject_decode(buf, sizeof(buf), &out, 0),
			 RS_E_MALFORMED);
}

/* The newest both speak, or a line naming both sides and which to
 * upgrade. */
static void agree_on_a_version(void **state)
{
	(void)state;
	uint8_t v = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_proto_agree(9, 9, "h:1", &v, &err), 0);
	assert_int_equal(v, 9);
	assert_int_equal(rs_proto_agree(9, 12, "h:1", &v, &err), 0);
	assert_int_equal(v, RS_PROTO_VERSION);
	assert_int_equal(rs_proto_agree(10, 11, "h:1", &v, &err), 0);
	assert_int_equal(v, 10);
	assert_int_equal(rs_proto_agree(11, 200, "h:1", &v, &err),
			 RS_E_VERSION);
	assert_string_equal(err.msg,
			    "h:1 speaks protocol versions 11 to 200, this "
			    "sender 9 to 10: upgrade the sender");
	assert_int_equal(rs_proto_agree(7, 8, "h:1", &v, &err), RS_E_VERSION);
	assert_non_null(strstr(err.msg, "upgrade the receiver"));
}

static void challenge_round_trip(void **state)
{
	(void)state;
	struct rs_challenge in = {.version = 0}, out;
	for (int i = 0; i < RS_AUTH_NONCE_SIZE; i++)
		in.nonce[i] = (uint8_t)(i * 3);
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX] = {0};
	assert_int_equal(rs_challenge_encode(&in, buf, sizeof(buf)),
			 RS_CHALLENGE_SIZE);
	assert_int_equal(rs_challenge_decode(buf, sizeof(buf), &out, 0), 0);
	assert_memory_equal(out.nonce, in.nonce, RS_AUTH_NONCE_SIZE);
	for (size_t cut = 0; cut < RS_CHALLENGE_SIZE; cut++)
		assert_int_not_equal(rs_challenge_decode(buf, cut, &out, 0), 0);
	/* A challenge is not a grant, nor a grant a challenge. */
	struct rs_accept_info info;
	assert_int_not_equal(rs_accept_info_decode(buf, sizeof(buf), &info, 0),
			     0);
	struct rs_accept_info grant = valid_info();
	encode(&grant, buf);
	assert_int_not_equal(rs_challenge_decode(buf, sizeof(buf), &out, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(accept_round_trip),
	    cmocka_unit_test(accept_is_little_endian),
	    cmocka_unit_test(accept_every_truncation_fails),
	    cmocka_unit_test(accept_encode_refuses_small_buffer),
	    cmocka_unit_test(accept_rejects_bad_fields),
	    cmocka_unit_test(accept_staged_only_needs_no_data_region),
	    cmocka_unit_test(accept_read_only_grant),
	    cmocka_unit_test(accept_window_grant),
	    cmocka_unit_test(header_checks),
	    cmocka_unit_test(connect_round_trip_and_checks),
	    cmocka_unit_test(connect_name_round_trip),
	    cmocka_unit_test(connect_name_checks),
	    cmocka_unit_test(reject_round_trip),
	    cmocka_unit_test(reject_logs_round_trip),
	    cmocka_unit_test(reject_reasons_worth_retrying),
	    cmocka_unit_test(reject_bad_logs),
	    cmocka_unit_test(connect_version_9),
	    cmocka_unit_test(a_version_9_writer_takes_flush_when_it_is_all),
	    cmocka_unit_test(versions_outside),
	    cmocka_unit_test(answers_in_the_version_asked),
	    cmocka_unit_test(newer_reject_read),
	    cmocka_unit_test(reject_starting),
	    cmocka_unit_test(agree_on_a_version),
	    cmocka_unit_test(challenge_round_trip),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
