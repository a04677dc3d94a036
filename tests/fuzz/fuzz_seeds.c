/* Writes the seed corpus of every fuzzer into DIR/<fuzzer>/seed-NN, made with
 * the project's own encoders so that no binary files are checked in. */
#include "fuzz_commit.h"
#include "proto/descriptor.h"
#include "proto/message.h"
#include "proto/pool_layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *out_dir;
static char cur_dir[4096];
static int seq;

static void begin(const char *name)
{
	snprintf(cur_dir, sizeof(cur_dir), "%s/%s", out_dir, name);
	if (mkdir(out_dir, 0755) && errno != EEXIST) {
		perror(out_dir);
		exit(1);
	}
	if (mkdir(cur_dir, 0755) && errno != EEXIST) {
		perror(cur_dir);
		exit(1);
	}
	seq = 0;
}

static void seed(const void *buf, size_t len)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/seed-%02d", cur_dir, seq++);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static void seed_str(const char *s)
{
	seed(s, strlen(s));
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void connect_seeds(void)
{
	begin("connect_req");
	static const char *const names[] = {"", "app", "audit.2024_x-y",
					    "abcdefghijklmnopqrstuvwxyz01234"};
	for (uint8_t m = 0; m < RS_METHOD_COUNT; m++) {
		struct rs_connect_req req = {.version = m % 2 ? 9 : 10,
					     .flags = m,
					     .method = m,
					     .methods = RS_METHOD_ALL};
		snprintf(req.log_name, sizeof(req.log_name), "%s",
			 names[m % (sizeof(names) / sizeof(*names))]);
		/* The request, then the byte saying what the receiver
		 * allows. */
		uint8_t buf[RS_CONNECT_PRIVATE_MAX + 1] = {0};
		size_t len = rs_connect_req_encode(&req, buf, sizeof(buf));
		buf[len] = (uint8_t)(0x2u << m);
		seed(buf, len + 1);
	}
}

static void accept_seeds(void)
{
	begin("accept_info");
	const uint64_t start = 8192, end = 64u << 20;
	struct rs_accept_info direct = {
	    .peer_flags = RS_PEER_DIRECT_WRITE_TO_PMEM,
	    .methods =
		RS_METHOD_BIT(RS_METHOD_APM) | RS_METHOD_BIT(RS_METHOD_GPSPM),
	    .credits = 64,
	    .data = {0x7f0000000000u, end - start, 0x1234,
		     RS_MR_USAGE_WRITE_DST | RS_MR_USAGE_READ_SRC},
	    .write_offset = {0x7f0000001010u, 8, 0x1235, RS_MR_USAGE_READ_SRC},
	    .start_offset = start,
	    .end_offset = end,
	    .write_offset_value = start + 4096,
	    .pool_uuid = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	    .peer_timeout_ms = 10000,
	};
	struct rs_accept_info staged = direct;
	staged.peer_flags = 0;
	staged.methods = RS_METHOD_BIT(RS_METHOD_STAGED);
	staged.data = (struct rs_mr_desc){0};
	staged.write_offset = (struct rs_mr_desc){0};
	staged.staging = (struct rs_mr_desc){0x7f1000000000u, 64u << 16, 0x99,
					     RS_MR_USAGE_WRITE_DST};
	staged.staging_slot_size = 1u << 16;
	staged.write_offset_value = end;
	struct rs_accept_info all = direct;
	all.methods |= RS_METHOD_BIT(RS_METHOD_STAGED);
	all.staging = staged.staging;
	all.staging_slot_size = staged.staging_slot_size;
	struct rs_accept_info gpspm = direct;
	gpspm.peer_flags = 0;
	gpspm.methods = RS_METHOD_BIT(RS_METHOD_GPSPM);
	gpspm.credits = 1;
	struct rs_accept_info archived = gpspm; /* a log that has rotated */
	archived.peer_flags = RS_PEER_ARCHIVE;
	archived.log_base = 5ull << 30;

	struct rs_accept_info reader = archived; /* a reading session's */
	reader.peer_flags = RS_PEER_READ_ONLY | RS_PEER_ARCHIVE;
	reader.methods = 0;
	reader.data_read = direct.data;
	reader.data_read.usage = RS_MR_USAGE_READ_SRC;
	reader.data = (struct rs_mr_desc){0};
	reader.write_offset = (struct rs_mr_desc){0};
	const struct rs_accept_info *grants[] = {&direct, &staged,   &all,
						 &gpspm,  &archived, &reader};
	for (size_t i = 0; i < sizeof(grants) / sizeof(*grants); i++) {
		uint8_t buf[RS_ACCEPT_PRIVATE_MAX] = {0};
		size_t len = rs_accept_info_encode(grants[i], buf, sizeof(buf));
		seed(buf, i == 2 ? sizeof(buf) : len);
	}
}

static void reject_seeds(void)
{
	begin("reject");
	for (uint8_t r = RS_REJECT_BUSY; r <= RS_REJECT_STOPPING + 1; r++) {
		struct rs_reject_info rej = {.version = r % 2 ? 9 : 10,
					     .reason = r,
					     .methods =
						 (uint8_t)(r << 1 & 0xe)};
		if (r == RS_REJECT_NO_SUCH_LOG || r == RS_REJECT_NAME_NEEDED)
			snprintf(rej.logs, sizeof(rej.logs), "%s",
				 r == RS_REJECT_NO_SUCH_LOG ? "app,audit,db"
							    : "a-1,b_2,...");
		uint8_t buf[RS_REJECT_PRIVATE_MAX] = {0};
		size_t len = rs_reject_encode(&rej, buf, sizeof(buf));
		seed(buf, r == RS_REJECT_METHOD ? sizeof(buf) : len);
	}
	/* a newer receiver's, that speaks 11 and 12 */
	struct rs_reject_info newer = {.reason = RS_REJECT_VERSION};
	uint8_t buf[RS_REJECT_PRIVATE_MAX] = {0};
	size_t len = rs_reject_encode(&newer, buf, sizeof(buf));
	buf[4] = 12;
	buf[8] = 11;
	buf[9] = 12;
	seed(buf, len);
}

static void msg_seeds(void)
{
	begin("msg");
	struct rs_msg msgs[] = {
	    {.type = RS_MSG_COMMIT,
	     .status = RS_MSG_OK,
	     .seq = 1,
	     .offset = 8192,
	     .length = 4096,
	     .ring_offset = 0},
	    {.type = RS_MSG_STAGED_COMMIT,
	     .status = RS_MSG_OK,
	     .seq = 2,
	     .offset = 12288,
	     .length = 100,
	     .ring_offset = 65536},
	    {.type = RS_MSG_COMMIT_DONE,
	     .status = RS_MSG_OK,
	     .seq = 2,
	     .offset = 12388,
	     .length = 0,
	     .ring_offset = 0},
	    {.type = RS_MSG_COMMIT_DONE,
	     .status = RS_MSG_NOT_CONTIGUOUS,
	     .seq = 3,
	     .offset = 12388,
	     .length = 0,
	     .ring_offset = 0},
	    {.type = RS_MSG_COMMIT,
	     .status = RS_MSG_OK,
	     .seq = 4,
	     .offset = UINT64_MAX - 1,
	     .length = 1,
	     .ring_offset = 0},
	    {.type = RS_MSG_HASH, .seq = 5, .offset = 8192, .length = 1 << 20},
	    {.type = RS_MSG_HASH_DONE,
	     .seq = 5,
	     .offset = 8192,
	     .hash = 0x1234},
	    {.type = RS_MSG_READ_STAGE,
	     .seq = 6,
	     .offset = 8192,
	     .length = 64,
	     .ring_offset = 4096},
	    {.type = RS_MSG_AUTH, .mac = {1, 2, 3}},
	    {.type = RS_MSG_REBASE, .seq = 7, .offset = 1 << 21},
	    {.type = RS_MSG_REBASE_DONE, .seq = 7, .offset = 3 << 20},
	    {.type = RS_MSG_REPLACE, .seq = 8, .offset = 1, .length = 4096},
	    {.type = RS_MSG_REPLACE_DONE,
	     .status = RS_MSG_NO_ROOM,
	     .seq = 8,
	     .length = 1 << 20},
	    {.type = RS_MSG_SWITCH, .seq = 9, .offset = 1 << 22},
	    {.type = RS_MSG_SWITCH_DONE, .seq = 9},
	    {.type = RS_MSG_WAIT, .seq = 10, .offset = 1 << 20, .length = 1},
	    {.type = RS_MSG_WAIT_DONE,
	     .seq = 10,
	     .offset = 3 << 20,
	     .length = 2 << 20,
	     .ring_offset = 1 << 20,
	     .hash = 2},
	    {.type = RS_MSG_WINDOW, .seq = 11},
	    {.type = RS_MSG_WINDOW_DONE,
	     .seq = 11,
	     .key = 0x1a2b,
	     .offset = 8192,
	     .length = 1 << 20},
	    {.type = RS_MSG_COMMIT,
	     .seq = 12,
	     .key = 0x1a2b,
	     .offset = 8192,
	     .length = 4096},
	};
	for (size_t i = 0; i < sizeof(msgs) / sizeof(*msgs); i++) {
		uint8_t buf[RS_MSG_SIZE];
		seed(buf, rs_msg_encode(&msgs[i], buf, sizeof(buf)));
	}
}

static void text_seeds(void)
{
	begin("endpoint");
	const char *eps[] = {"192.168.0.1",
			     "receiver:7204",
			     "[fe80::1%eth0]:80",
			     ":65535",
			     "[::1]",
			     "[]:1",
			     "host:0",
			     "a:b:c",
			     "h/app",
			     "h:7300/app",
			     "[fe80::1]:7300/app",
			     "h/",
			     "h/bad name",
			     "h/.x",
			     "h/abcdefghijklmnopqrstuvwxyz012345",
			     "a:7300/one,b/two"};
	for (size_t i = 0; i < sizeof(eps) / sizeof(*eps); i++)
		seed_str(eps[i]);

	begin("size");
	const char *sizes[] = {"4096",	    "64M", "1GiB",
			       "2TB",	    "3k",  "18446744073709551615",
			       "16777216T", "1.5G"};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		seed_str(sizes[i]);
}

static void layout_seeds(void)
{
	begin("pool_layout");
	const uint64_t quads[][4] = {
	    {8192, 4096, 8192, 2u << 20},
	    {RS_LOG_HDR_END, 2u << 20, RS_LOG_HDR_END + 8, 2u << 20},
	    {UINT64_MAX - 7, 8, 0, UINT64_MAX},
	};
	for (size_t i = 0; i < sizeof(quads) / sizeof(*quads); i++) {
		uint8_t buf[32];
		for (int j = 0; j < 4; j++)
			put_le(buf + 8 * j, quads[i][j], 8);
		seed(buf, sizeof(buf));
	}
}

/* A commit input: header then messages, see fuzz_commit.h. */
static void commit_seed(uint8_t cfg, uint32_t write_pos,
			const struct rs_msg *msgs, size_t n)
{
	uint8_t buf[FUZZ_COMMIT_HDR_SIZE + FUZZ_COMMIT_MAX_MSGS * RS_MSG_SIZE];
	buf[0] = cfg;
	put_le(buf + 1, write_pos, 4);
	size_t len = FUZZ_COMMIT_HDR_SIZE;
	for (size_t i = 0; i < n; i++)
		len += rs_msg_encode(&msgs[i], buf + len, sizeof(buf) - len);
	seed(buf, len);
}

static void commit_seeds(void)
{
	begin("commit");
	const uint64_t s = FUZZ_COMMIT_LOG_START, e = FUZZ_COMMIT_POOL_SIZE;
	const uint8_t ring64k = 6 << FUZZ_COMMIT_RING_SHIFT;
	/* Each method a session can have, none included. */
	const uint8_t methods[] = {FUZZ_COMMIT_IN_PLACE, FUZZ_COMMIT_STAGED,
				   FUZZ_COMMIT_APM, FUZZ_COMMIT_NONE};
	const size_t nmethods = sizeof(methods) / sizeof(*methods);

	/* GPSPM then staged, appending; then refusals of each kind. */
	struct rs_msg a[] = {
	    {.type = RS_MSG_COMMIT,
	     .status = 0,
	     .seq = 1,
	     .offset = s,
	     .length = 6,
	     .ring_offset = 0},
	    {.type = RS_MSG_STAGED_COMMIT,
	     .status = 0,
	     .seq = 2,
	     .offset = s + 6,
	     .length = 5,
	     .ring_offset = 4096},
	    {.type = RS_MSG_COMMIT,
	     .status = 0,
	     .seq = 3,
	     .offset = s + 100,
	     .length = 4,
	     .ring_offset = 0},
	    {.type = RS_MSG_COMMIT,
	     .status = 0,
	     .seq = 4,
	     .offset = s + 11,
	     .length = e,
	     .ring_offset = 0},
	    {.type = RS_MSG_COMMIT,
	     .status = 0,
	     .seq = 5,
	     .offset = 0,
	     .length = 8,
	     .ring_offset = 0},
	    {.type = RS_MSG_STAGED_COMMIT,
	     .status = 0,
	     .seq = 6,
	     .offset = s + 11,
	     .length = 16,
	     .ring_offset = 65536 - 8},
	    {.type = RS_MSG_COMMIT_DONE,
	     .status = 0,
	     .seq = 7,
	     .offset = s + 11,
	     .length = 0,
	     .ring_offset = 0},
	};
	for (size_t i = 0; i < nmethods; i++)
		commit_seed(methods[i] | ring64k, 0, a, sizeof(a) / sizeof(*a));

	/* Filling the log to its very end, then one byte more. */
	struct rs_msg b[] = {
	    {.type = RS_MSG_STAGED_COMMIT,
	     .status = 0,
	     .seq = 1,
	     .offset = e - 4096,
	     .length = 4000,
	     .ring_offset = 65536 - 4000},
	    {.type = RS_MSG_COMMIT,
	     .status = 0,
	     .seq = 2,
	     .offset = e - 96,
	     .length = 96,
	     .ring_offset = 0},
	    {.type = RS_MSG_COMMIT,
	     .status = 0,
	     .seq = 3,
	     .offset = e,
	     .length = 1,
	     .ring_offset = 0},
	};
	for (size_t i = 0; i < 2; i++)
		commit_seed(methods[i] | ring64k, (uint32_t)(e - 4096 - s), b,
			    sizeof(b) / sizeof(*b));

	/* Staged only, with a ring whose length is not a slot multiple. */
	struct rs_msg c[] = {
	    {.type = RS_MSG_STAGED_COMMIT,
	     .status = 0,
	     .seq = 1,
	     .offset = s,
	     .length = 4104,
	     .ring_offset = 0},
	    {.type = RS_MSG_STAGED_COMMIT,
	     .status = 0,
	     .seq = 2,
	     .offset = s + 4104,
	     .length = 1,
	     .ring_offset = 4103},
	    {.type = RS_MSG_COMMIT,
	     .status = 0,
	     .seq = 3,
	     .offset = s + 4105,
	     .length = 1,
	     .ring_offset = 0},
	};
	commit_seed(FUZZ_COMMIT_STAGED | 5 << FUZZ_COMMIT_RING_SHIFT, 0, c,
		    sizeof(c) / sizeof(*c));

	/* No ring offered at all, and GPSPM only. */
	commit_seed(FUZZ_COMMIT_STAGED | FUZZ_COMMIT_NO_RING, 0, c, 1);
	commit_seed(FUZZ_COMMIT_IN_PLACE, 0, a, 1);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	out_dir = argv[1];
	connect_seeds();
	accept_seeds();
	reject_seeds();
	msg_seeds();
	text_seeds();
	layout_seeds();
	commit_seeds();
	return 0;
}
