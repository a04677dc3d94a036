/* The receiver's commit rule applied to a real libpmemlog pool (a 2 MiB file
 * in /dev/shm, mapped once) for a sequence of commit requests from the wire.
 * Invariants checked after every request, against a shadow copy of the whole
 * pool that the harness updates with what the request may legitimately do:
 *  - nothing is written outside [start, end) (the pool header and the bytes
 *    after the log stay as they were, but for the write-offset word, and
 *    the floor record when the harness moves the offset back), and
 *    committed bytes are never rewritten (appends only);
 *  - a staged commit that succeeds copies exactly its ring bytes to exactly
 *    its range; the ring (allocated with its exact length) is never read
 *    past its end;
 *  - the write offset stays within [start, end]; it moves, to the end of the
 *    batch, exactly when the request is accepted, and a request is accepted
 *    exactly when it is the one the session's method takes, inside the log
 *    and the ring, and starts at the write offset; a refusal names one of
 *    the reasons that apply;
 *  - the reply is a well-formed COMMIT_DONE echoing seq and carrying the
 *    write offset. */
#include "fuzz_commit.h"
#include "fuzz_check.h"
#include "methods/commit.h"
#include "methods/recv_method.h"
#include "pool/offset_rule.h"
#include "pool/pmem_target.h"
#include "proto/pool_layout.h"

#include <string.h>
#include <unistd.h>

static struct recv_pmem_target target;
static uint8_t *shadow;
static uint8_t *rings[8];

static void shadow_put_le64(uint64_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		shadow[at + (uint64_t)i] = (uint8_t)(v >> (8 * i));
}

static void setup(void)
{
	char path[64];
	const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(path, sizeof(path), "%s/rs-fuzz-pool-XXXXXX", dir);
	int fd = mkstemp(path);
	FUZZ_CHECK(fd >= 0);
	close(fd);
	unlink(path); /* recv_pmem_target_open creates it */
	struct rs_error err = {0};
	if (recv_pmem_target_open(&target, path, FUZZ_COMMIT_POOL_SIZE, &err)) {
		fprintf(stderr, "fuzz_commit: %s\n", err.msg);
		abort();
	}
	unlink(path); /* the mapping is all we need */
	FUZZ_CHECK(target.start == FUZZ_COMMIT_LOG_START);
	FUZZ_CHECK(target.end <= target.size && target.start < target.end);

	shadow = malloc(target.size);
	FUZZ_CHECK(shadow);
	memcpy(shadow, target.base, target.size);
	for (int i = 0; i < 8; i++) {
		rings[i] = malloc(fuzz_commit_ring_len[i]);
		FUZZ_CHECK(rings[i] || fuzz_commit_ring_len[i] == 0);
		for (uint64_t j = 0; j < fuzz_commit_ring_len[i]; j++)
			rings[i][j] = (uint8_t)(j * 131 + (uint64_t)i + 1);
	}
}

/* The whole pool is what the shadow says it should be. */
static void check_pool(void)
{
	if (memcmp(target.base, shadow, target.size) == 0)
		return;
	size_t at = 0;
	while (target.base[at] == shadow[at])
		at++;
	fprintf(stderr,
		"fuzz_commit: pool byte %zu is 0x%02x, expected 0x%02x "
		"(log is [%llu, %llu))\n",
		at, target.base[at], shadow[at],
		(unsigned long long)target.start,
		(unsigned long long)target.end);
	abort();
}

/* The session's method picked by the input. */
static const struct recv_method *method_of(uint8_t cfg)
{
	switch (cfg & FUZZ_COMMIT_METHOD_MASK) {
	case FUZZ_COMMIT_IN_PLACE:
		return &recv_method_gpspm;
	case FUZZ_COMMIT_STAGED:
		return &recv_method_staged;
	case FUZZ_COMMIT_APM:
		return &recv_method_apm;
	default:
		return NULL;
	}
}

static void apply_one(const struct recv_staging *staging,
		      const struct recv_method *m, const struct rs_msg *req)
{
	const uint64_t start = target.start, end = target.end;
	const uint64_t before = recv_pmem_target_write_offset(&target);
	bool staged = req->type == RS_MSG_STAGED_COMMIT;

	/* Which refusals apply, from the rules in methods/commit.h: GPSPM takes
	 * in-place commits, staged staged ones, APM and none no request. */
	bool bad = !((req->type == RS_MSG_COMMIT && m == &recv_method_gpspm) ||
		     (staged && m == &recv_method_staged));
	bool out_of_log = req->offset < start ||
			  (unsigned __int128)req->offset + req->length > end;
	bool out_of_ring =
	    staged && (!staging->ring ||
		       (unsigned __int128)req->ring_offset + req->length >
			   staging->length);
	bool gap = req->offset != before;
	bool accept = !bad && !out_of_log && !out_of_ring && !gap;

	struct rs_msg reply;
	memset(&reply, 0xa5, sizeof(reply));
	bool ok = recv_commit_apply(&target, staging, m, req, &reply);
	uint64_t after = recv_pmem_target_write_offset(&target);

	FUZZ_CHECK(after >= start && after <= end);
	FUZZ_CHECK(ok == accept);
	FUZZ_CHECK(ok == (reply.status == RS_MSG_OK));
	if (reply.status == RS_MSG_BAD_REQUEST)
		FUZZ_CHECK(bad);
	else if (reply.status == RS_MSG_OUT_OF_RANGE)
		FUZZ_CHECK(out_of_log || out_of_ring);
	else if (reply.status == RS_MSG_NOT_CONTIGUOUS)
		FUZZ_CHECK(gap);
	else
		FUZZ_CHECK(reply.status == RS_MSG_OK);
	FUZZ_CHECK(reply.type == RS_MSG_COMMIT_DONE && reply.seq == req->seq);
	FUZZ_CHECK(reply.offset == after);
	uint8_t wire[RS_MSG_SIZE];
	struct rs_msg back;
	FUZZ_CHECK(rs_msg_encode(&reply, wire, sizeof(wire)) == RS_MSG_SIZE);
	FUZZ_CHECK(rs_msg_decode(wire, sizeof(wire), &back, NULL) == 0);

	if (ok) {
		FUZZ_CHECK(after == before + req->length);
		if (staged)
			memcpy(shadow + req->offset,
			       staging->ring + req->ring_offset, req->length);
		shadow_put_le64(RS_LOG_WRITE_OFFSET, after);
	} else {
		FUZZ_CHECK(after == before);
	}
	check_pool();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!shadow)
		setup();
	if (size < FUZZ_COMMIT_HDR_SIZE)
		return 0;

	uint8_t cfg = data[0];
	const struct recv_method *m = method_of(cfg);
	unsigned ring = (cfg >> FUZZ_COMMIT_RING_SHIFT) & 7;
	struct recv_staging staging = {0};
	if (!(cfg & FUZZ_COMMIT_NO_RING)) {
		staging.ring = rings[ring];
		staging.length = fuzz_commit_ring_len[ring];
	}

	/* Where earlier commits left the log, set the way a truncating
	 * sender's connect sets it. */
	uint64_t span = target.end - target.start + 1;
	uint64_t write = target.start + fuzz_le(data + 1, 4) % span;
	uint64_t before = recv_pmem_target_write_offset(&target), floor = 0;
	recv_pmem_target_commit(&target, write);
	shadow_put_le64(RS_LOG_WRITE_OFFSET, write);
	FUZZ_CHECK(recv_pmem_target_write_offset(&target) == write);
	/* Moved back, the floor went down with it, first (offset_rule.h). */
	const uint8_t *rec = target.base + RECV_OFFSET_FLOOR_AT;
	if (write < before)
		FUZZ_CHECK(recv_offset_floor_decode(
			       rec, target.uuid,
			       recv_offset_floor_epoch(
				   target.base, target.start, target.uuid),
			       &floor) &&
			   floor == write);
	memcpy(shadow + RECV_OFFSET_FLOOR_AT, rec, RECV_OFFSET_FLOOR_SIZE);

	data += FUZZ_COMMIT_HDR_SIZE;
	size -= FUZZ_COMMIT_HDR_SIZE;
	for (int n = 0; n < FUZZ_COMMIT_MAX_MSGS && size >= RS_MSG_SIZE; n++) {
		struct rs_msg req;
		if (rs_msg_decode(data, RS_MSG_SIZE, &req, NULL) == 0)
			apply_one(&staging, m, &req);
		data += RS_MSG_SIZE;
		size -= RS_MSG_SIZE;
	}
	return 0;
}
