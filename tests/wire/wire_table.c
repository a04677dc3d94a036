/* The wire's golden table: every message this build encodes, in every
 * protocol version it speaks, with fixed field values, one line each in
 * hex. tests/wire/golden-vN.txt holds version N's lines as the release
 * that introduced N encoded them; unit_wire compares. A change of any
 * message's layout or meaning inside a version fails it: such a change is
 * a new protocol version (CHANGELOG.md, docs/design.md). Only the public
 * encoders are used, so the same file builds against a release's source
 * (scripts/wire-check).
 *   wire_table VERSION    prints that version's table */
#include "proto/descriptor.h"
#include "proto/message.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_hex(const char *what, const uint8_t *buf, size_t len)
{
	printf("%s %zu ", what, len);
	for (size_t i = 0; i < len; i++)
		printf("%02x", buf[i]);
	printf("\n");
}

/* A byte pattern that tells fields apart: seed, seed+1, ... */
static void pattern(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i);
}

static struct rs_mr_desc mr(uint8_t seed, uint8_t usage)
{
	return (struct rs_mr_desc){.addr = 0x1000000000ull * seed + 0x1234,
				   .length = 0x10000ull * seed,
				   .rkey = 0x01020300u + seed,
				   .usage = usage};
}

static void connect_reqs(uint8_t v)
{
	struct rs_connect_req req = {.version = v,
				     .flags = RS_CONNECT_TRUNCATE |
					      RS_CONNECT_TAKEOVER,
				     .method = 2,
				     .methods = 0x0f};
	pattern(req.token.bytes, sizeof(req.token.bytes), 0x40);
	strcpy(req.log_name, "app.log-1");
	uint8_t buf[RS_CONNECT_PRIVATE_MAX] = {0};
	print_hex("connect_req writer", buf,
		  rs_connect_req_encode(&req, buf, sizeof(buf)));
	struct rs_connect_req full = {
	    .version = v, .flags = RS_CONNECT_VERIFY, .methods = 0};
	memset(full.log_name, 'n', RS_LOG_NAME_MAX);
	memset(buf, 0, sizeof(buf));
	print_hex("connect_req reader-31", buf,
		  rs_connect_req_encode(&full, buf, sizeof(buf)));
}

static void accept_infos(uint8_t v)
{
	struct rs_accept_info a = {
	    .version = v,
	    .peer_flags = RS_PEER_ARCHIVE | RS_PEER_WINDOWS,
	    .methods = 0x0b,
	    .credits = 64,
	    .data = mr(1, RS_MR_USAGE_WRITE_DST),
	    .write_offset = mr(2, RS_MR_USAGE_WRITE_DST),
	    .staging = mr(3, RS_MR_USAGE_WRITE_DST),
	    .data_read = mr(4, RS_MR_USAGE_READ_SRC),
	    .staging_read = mr(5, RS_MR_USAGE_READ_SRC),
	    .staging_slot_size = 1u << 20,
	    .start_offset = 8192,
	    .end_offset = 0x40000000ull,
	    .write_offset_value = 0x123456,
	    .peer_timeout_ms = 10000,
	    .log_base = 0x987654321ull,
	};
	pattern(a.pool_uuid, sizeof(a.pool_uuid), 0x80);
	pattern(a.token.bytes, sizeof(a.token.bytes), 0xa0);
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX] = {0};
	print_hex("accept_info", buf,
		  rs_accept_info_encode(&a, buf, sizeof(buf)));
}

static void challenges(uint8_t v)
{
	struct rs_challenge c = {.version = v};
	pattern(c.nonce, sizeof(c.nonce), 0x20);
	uint8_t buf[RS_ACCEPT_PRIVATE_MAX] = {0};
	print_hex("challenge", buf, rs_challenge_encode(&c, buf, sizeof(buf)));
}

static void rejects(uint8_t v)
{
	for (uint8_t reason = RS_REJECT_BUSY; reason <= RS_REJECT_STARTING;
	     reason++) {
		struct rs_reject_info r = {.version = v,
					   .reason = reason,
					   .methods = 0x05,
					   .retry_ms = 250};
		strcpy(r.logs, "alpha,beta");
		uint8_t buf[RS_REJECT_PRIVATE_MAX] = {0};
		char what[32];
		snprintf(what, sizeof(what), "reject %u", reason);
		print_hex(what, buf, rs_reject_encode(&r, buf, sizeof(buf)));
	}
}

static void messages(void)
{
	for (uint8_t type = RS_MSG_COMMIT; type <= RS_MSG_WINDOW_DONE; type++) {
		struct rs_msg m = {.type = type,
				   .status = type % 2 ? 0 : 2,
				   .flags =
				       type == RS_MSG_COMMIT ? RS_MSG_LONE : 0,
				   .seq = 0x01000000u + type,
				   .key = rs_msg_carries_key(type) ? 0x77u : 0,
				   .offset = 0x1000ull * type,
				   .length = 0x100ull + type,
				   .ring_offset = 0x20000ull + type};
		if (type == RS_MSG_AUTH)
			pattern(m.mac, sizeof(m.mac), 0x60);
		else if (m.key)
			m.key_end = 0x300000ull + type;
		else
			m.hash = 0x0123456789abcdefull + type;
		uint8_t buf[RS_MSG_SIZE] = {0};
		char what[32];
		snprintf(what, sizeof(what), "msg %u", type);
		print_hex(what, buf, rs_msg_encode(&m, buf, sizeof(buf)));
	}
}

int main(int argc, char **argv)
{
	int v = argc == 2 ? atoi(argv[1]) : 0;
	if (v < RS_PROTO_VERSION_MIN || v > RS_PROTO_VERSION) {
		fprintf(stderr,
			"usage: wire_table VERSION (this build speaks %d to "
			"%d)\n",
			RS_PROTO_VERSION_MIN, RS_PROTO_VERSION);
		return 2;
	}
	connect_reqs((uint8_t)v);
	accept_infos((uint8_t)v);
	challenges((uint8_t)v);
	rejects((uint8_t)v);
	messages();
	return 0;
}
