/* The verify pipeline against a fake link and a fake FILE: a fake receiver
 * that holds a log, answers hash requests with the XXH3 of the bytes asked
 * about and read requests with the bytes (landing in a buffer per slot, as
 * RDMA reads do), staging them first when only its ring is readable.
 * Whatever the mode and the order of the answers, the outcome and the
 * first differing byte must be exact, the receiver is never asked about
 * more than the committed range, and never more than depth requests are
 * in flight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "verify/pipeline.h"
#include "verify/plan.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define LOG_START 8192u
#define DATA_MAX (4u << 20)
#define QUEUE 64
#define CHUNK 4096u
#define LEN (10 * CHUNK + 100) /* ten chunks and a short one */
#define RANGES_MAX 16

struct request {
	uint64_t id;
	uint64_t at; /* absolute log offset */
	uint64_t len;
	bool hash;
	bool staged; /* staged, and read_staged was called: bytes due */
};

struct rig {
	uint8_t log[LOG_START + DATA_MAX];
	uint8_t file[DATA_MAX];
	size_t file_len, file_pos;
	int file_fails_at; /* the read that fails (1: the first), 0: none */
	unsigned file_reads;
	struct verify_offer offer;
	struct verify_config cfg;
	struct verify_plan plan;
	struct verify_pipeline *p;
	struct rs_error err;
	struct verify_result r;
	struct request q[QUEUE]; /* in flight, in the order posted */
	unsigned nq, most;
	unsigned hashes, reads, staged_reads;
	int posts_left; /* posts taken before the link fails; <0: all */
	bool newest_first;
	uint8_t *slots; /* a chunk per slot: where read-back bytes land */
	uint64_t ranges[RANGES_MAX][2];
	unsigned nranges;
};

static uint64_t rng_state;

static void fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	rng_state = seed * 2654435761u + 1;
	for (size_t i = 0; i < len; i++) {
		rng_state ^= rng_state << 13;
		rng_state ^= rng_state >> 7;
		rng_state ^= rng_state << 17;
		buf[i] = (uint8_t)rng_state;
	}
}

/* ---- the fake receiver ---- */

static uint8_t *slot_of(struct rig *g, uint64_t id)
{
	return g->slots + (id % g->plan.depth) * g->plan.chunk;
}

static int fake_post(struct rig *g, uint64_t id, uint64_t at, uint64_t len,
		     bool hash, struct rs_error *err)
{
	if (g->posts_left == 0)
		return rs_error_set(err, RS_E_LOST, EPIPE, "link down");
	if (g->posts_left > 0)
		g->posts_left--;
	/* Within its credits, and never two requests in one slot. */
	assert_true(g->nq < g->plan.depth);
	for (unsigned i = 0; i < g->nq; i++)
		assert_int_not_equal(g->q[i].id % g->plan.depth,
				     id % g->plan.depth);
	/* Only committed bytes of the planned range. */
	assert_true(len > 0);
	assert_true(at >= g->plan.log_offset);
	assert_true(at + len <= g->plan.log_offset + g->plan.remote_len);
	if (!hash) { /* it fits its slot, whose old bytes are now gone */
		assert_true(len <= g->plan.chunk);
		memset(slot_of(g, id), 0xee, g->plan.chunk);
	}
	g->q[g->nq++] =
	    (struct request){.id = id, .at = at, .len = len, .hash = hash};
	if (g->nq > g->most)
		g->most = g->nq;
	if (hash)
		g->hashes++;
	else
		g->reads++;
	return 0;
}

static int fake_post_hash(void *ctx, uint64_t id, uint64_t at, uint64_t len,
			  struct rs_error *err)
{
	return fake_post(ctx, id, at, len, true, err);
}

static int fake_post_read(void *ctx, uint64_t id, uint64_t at, uint64_t len,
			  struct rs_error *err)
{
	return fake_post(ctx, id, at, len, false, err);
}

static int fake_read_staged(void *ctx, uint64_t id, uint64_t len,
			    struct rs_error *err)
{
	struct rig *g = ctx;
	(void)err;
	g->staged_reads++;
	for (unsigned i = 0; i < g->nq; i++)
		if (g->q[i].id == id && !g->q[i].hash && !g->q[i].staged) {
			assert_int_equal(g->q[i].len, len);
			g->q[i].staged = true;
			return 0;
		}
	fail_msg("read_staged of %llu, which is not staged",
		 (unsigned long long)id);
	return -1;
}

/* The receiver answers one request in flight: the oldest, or the newest
 * when newest_first. A read through the ring is staged first. */
static int serve_one(struct rig *g)
{
	assert_true(g->nq > 0); /* else the pipeline waits for nothing */
	unsigned i = g->newest_first ? g->nq - 1 : 0;
	struct request r = g->q[i];
	if (!r.hash && !g->offer.pool_readable && !r.staged)
		return verify_pipeline_staged(g->p, r.id, &g->err);
	memmove(g->q + i, g->q + i + 1, (g->nq - i - 1) * sizeof(r));
	g->nq--;
	if (r.hash)
		return verify_pipeline_hashed(
		    g->p, r.id, XXH3_64bits(g->log + r.at, r.len), &g->err);
	uint8_t *slot = slot_of(g, r.id);
	memcpy(slot, g->log + r.at, r.len);
	return verify_pipeline_read(g->p, r.id, slot, &g->err);
}

/* ---- the fake FILE ---- */

static int fake_read(void *ctx, uint8_t *buf, size_t len, size_t *got,
		     struct rs_error *err)
{
	struct rig *g = ctx;
	if (++g->file_reads == (unsigned)g->file_fails_at)
		return rs_error_set(err, RS_E_IO, EIO,
				    "cannot read f: Input/output error");
	size_t n =
	    g->file_len - g->file_pos < len ? g->file_len - g->file_pos : len;
	memcpy(buf, g->file + g->file_pos, n);
	g->file_pos += n;
	*got = n;
	return 0;
}

static void note_range(void *ctx, uint64_t start, uint64_t end)
{
	struct rig *g = ctx;
	assert_true(g->nranges < RANGES_MAX);
	g->ranges[g->nranges][0] = start;
	g->ranges[g->nranges][1] = end;
	g->nranges++;
}

/* ---- the rig ---- */

static int rig_setup(void **state)
{
	struct rig *g = calloc(1, sizeof(*g));
	*state = g;
	if (!g)
		return -1;
	g->posts_left = -1;
	g->offer = (struct verify_offer){.credits = 16,
					 .pool_readable = true,
					 .ring_readable = false,
					 .ring_slot = CHUNK,
					 .start = LOG_START};
	g->cfg = (struct verify_config){.method = VERIFY_HASH,
					.chunk = CHUNK,
					.depth = 4,
					.whole_log = true,
					.local_max = UINT64_MAX};
	return 0;
}

static int rig_teardown(void **state)
{
	struct rig *g = *state;
	verify_pipeline_delete(&g->p);
	free(g->slots);
	free(g);
	return 0;
}

/* A log of log_len random bytes and a FILE that starts as the same bytes,
 * file_len of them (past the log: more random bytes). */
static void contents(struct rig *g, size_t log_len, size_t file_len)
{
	fill_random(g->file, file_len > log_len ? file_len : log_len, 7);
	memcpy(g->log + LOG_START, g->file, log_len);
	g->offer.committed_end = LOG_START + log_len;
	g->file_len = file_len;
}

/* Forgets the last run, keeping the configuration. */
static void reset(struct rig *g)
{
	verify_pipeline_delete(&g->p);
	free(g->slots);
	g->slots = NULL;
	g->nq = g->most = g->hashes = g->reads = g->staged_reads = 0;
	g->file_pos = g->file_reads = 0;
	g->nranges = 0;
}

static void plan(struct rig *g)
{
	assert_int_equal(
	    verify_plan_make(&g->cfg, &g->offer, &g->plan, &g->err), 0);
	g->slots = malloc((size_t)g->plan.depth * g->plan.chunk);
	assert_non_null(g->slots);
}

static struct verify_link fake_link(struct rig *g)
{
	return (struct verify_link){.ctx = g,
				    .post_hash = fake_post_hash,
				    .post_read = fake_post_read,
				    .read_staged = fake_read_staged};
}

/* Plans and makes a comparing pipeline; nothing posted yet. */
static void prepare(struct rig *g)
{
	plan(g);
	struct verify_compare what = {
	    .source = {.ctx = g, .read = fake_read},
	    .local_max = g->cfg.local_max,
	    .all_ranges = g->cfg.all_ranges,
	    .range = note_range,
	    .range_ctx = g,
	};
	struct verify_link link = fake_link(g);
	assert_int_equal(
	    verify_pipeline_compare(&g->p, &g->plan, &link, &what, &g->err), 0);
	assert_int_equal(verify_pipeline_state(g->p), VERIFY_COMPARING);
}

/* Serves the pipeline to its end. Returns the first error, or 0. */
static int serve(struct rig *g)
{
	int rc = 0;
	while (!rc && !verify_pipeline_finished(g->p))
		rc = serve_one(g);
	verify_pipeline_result(g->p, &g->r);
	return rc;
}

static int compare(struct rig *g)
{
	prepare(g);
	int rc = verify_pipeline_start(g->p, &g->err);
	return rc ? rc : serve(g);
}

/* The comparison ran to its end with this outcome at this byte. */
static void found(struct rig *g, enum verify_outcome outcome, uint64_t at)
{
	assert_int_equal(compare(g), 0);
	assert_string_equal(verify_state_name(verify_pipeline_state(g->p)),
			    "done");
	assert_int_equal(g->r.outcome, outcome);
	if (outcome != VERIFY_SAME)
		assert_int_equal(g->r.first_difference, at);
	assert_int_equal(g->nq, 0); /* nothing left in flight */
	assert_int_equal(verify_pipeline_in_flight(g->p), 0);
}

/* ---- identical content, hash and read modes ---- */

static void identical_by_hash(void **state)
{
	struct rig *g = *state;
	contents(g, LEN, LEN);
	found(g, VERIFY_SAME, 0);
	assert_int_equal(g->r.compared, LEN);
	assert_int_equal(g->r.local_length, LEN);
	assert_int_equal(g->r.remote_length, LEN);
	assert_int_equal(g->hashes, 11);
	assert_int_equal(g->reads, 0);
	assert_int_equal(g->most, 4);
}

static void identical_by_read(void **state)
{
	struct rig *g = *state;
	g->cfg.method = VERIFY_READ;
	contents(g, LEN, LEN);
	found(g, VERIFY_SAME, 0);
	assert_int_equal(g->r.compared, LEN);
	assert_int_equal(g->hashes, 0);
	assert_int_equal(g->reads, 11);
	assert_int_equal(g->staged_reads, 0);
}

/* fsdax on rxe: the log is not readable, its ring is; chunks shrink to
 * the ring's slot and every read is staged, then read from the ring. */
static void identical_by_read_through_the_ring(void **state)
{
	struct rig *g = *state;
	g->cfg.method = VERIFY_READ;
	g->offer.pool_readable = false;
	g->offer.ring_readable = true;
	g->offer.ring_slot = 1024;
	contents(g, LEN, LEN);
	found(g, VERIFY_SAME, 0);
	assert_int_equal(g->plan.chunk, 1024);
	assert_int_equal(g->r.compared, LEN);
	assert_int_equal(g->reads, LEN / 1024 + 1);
	assert_int_equal(g->staged_reads, g->reads);
}

/* ---- one byte differs: the first differing byte is exact ---- */

enum mode {
	HASH_THEN_READ_BACK, /* hashes; the differing chunk is read back */
	HASH_THEN_HALVING,   /* hashes only: the chunk is halved */
	READ_POOL,
	READ_RING,
};

static void set_mode(struct rig *g, enum mode m)
{
	g->cfg.method =
	    m == READ_POOL || m == READ_RING ? VERIFY_READ : VERIFY_HASH;
	g->offer.pool_readable = m == HASH_THEN_READ_BACK || m == READ_POOL;
	g->offer.ring_readable = m == READ_RING;
}

/* Byte `at` of the log differs from FILE's, in mode m. */
static void differs_at(struct rig *g, enum mode m, uint64_t at)
{
	set_mode(g, m);
	contents(g, LEN, LEN);
	g->log[LOG_START + at] ^= 0x5a;
	found(g, VERIFY_DIFFERENT, at);
	/* Chunks after the differing one are not compared. */
	uint64_t through = (at / CHUNK + 1) * CHUNK;
	assert_int_equal(g->r.compared, through < LEN ? through : LEN);
	if (m == HASH_THEN_HALVING)
		assert_int_equal(g->reads, 0);
	if (m == HASH_THEN_READ_BACK)
		assert_int_equal(g->reads, 1);
}

static void each_mode_differs_at(struct rig *g, uint64_t at)
{
	for (enum mode m = HASH_THEN_READ_BACK; m <= READ_RING; m++) {
		reset(g);
		differs_at(g, m, at);
	}
}

static void differs_in_the_first_chunk(void **state)
{
	each_mode_differs_at(*state, 0);
	each_mode_differs_at(*state, 1000);
}

static void differs_in_a_middle_chunk(void **state)
{
	each_mode_differs_at(*state, 5 * CHUNK + 1234);
	each_mode_differs_at(*state, 6 * CHUNK - 1);
}

static void differs_in_the_last_chunk(void **state)
{
	each_mode_differs_at(*state, 10 * CHUNK);
	each_mode_differs_at(*state, LEN - 1);
}

/* Halving a 4 KiB chunk takes twelve hashes of halves. */
static void halving_asks_log2_chunk_hashes(void **state)
{
	struct rig *g = *state;
	differs_at(g, HASH_THEN_HALVING, 3 * CHUNK + 777);
	/* Chunks 0..6 (3 and depth - 1 more), then twelve halves. */
	assert_int_equal(g->hashes, 7 + 12);
}

/* ---- lengths ---- */

static void file_longer_than_the_log(void **state)
{
	struct rig *g = *state;
	contents(g, 5000, LEN);
	found(g, VERIFY_REMOTE_SHORTER, 5000);
	assert_int_equal(g->r.remote_length, 5000);
	assert_int_equal(g->r.compared, 5000);
}

static void file_longer_at_a_chunk_boundary(void **state)
{
	struct rig *g = *state;
	contents(g, 2 * CHUNK, LEN);
	found(g, VERIFY_REMOTE_SHORTER, 2 * CHUNK);
	assert_int_equal(g->r.compared, 2 * CHUNK);
}

static void file_shorter_than_the_log(void **state)
{
	struct rig *g = *state;
	g->cfg.method = VERIFY_READ;
	contents(g, LEN, 5000);
	found(g, VERIFY_REMOTE_LONGER, 5000);
	assert_int_equal(g->r.local_length, 5000);
	assert_int_equal(g->r.remote_length, LEN);
}

/* A byte that differs before the log ends is the first difference. */
static void a_byte_before_a_length(void **state)
{
	struct rig *g = *state;
	contents(g, 20000, LEN);
	g->log[LOG_START + 3000] ^= 1;
	found(g, VERIFY_DIFFERENT, 3000);
}

static void empty_log(void **state)
{
	struct rig *g = *state;
	contents(g, 0, LEN);
	found(g, VERIFY_REMOTE_SHORTER, 0);
	assert_int_equal(g->r.compared, 0);
	assert_int_equal(g->hashes + g->reads, 0); /* nothing to ask */
}

static void empty_log_and_file(void **state)
{
	struct rig *g = *state;
	contents(g, 0, 0);
	found(g, VERIFY_SAME, 0);
	assert_int_equal(g->r.compared, 0);
	assert_int_equal(g->hashes + g->reads, 0);
}

/* --send: only the range just shipped, and only as many FILE bytes. */
static void a_range_of_the_log(void **state)
{
	struct rig *g = *state;
	contents(g, LEN, LEN);
	memmove(g->file, g->file + 5000, LEN - 5000);
	g->cfg.whole_log = false;
	g->cfg.offset = 5000;
	g->cfg.length = 10000;
	g->cfg.local_max = 10000;
	found(g, VERIFY_SAME, 0);
	assert_int_equal(g->plan.log_offset, LOG_START + 5000);
	assert_int_equal(g->r.compared, 10000);
	assert_int_equal(g->r.local_length, 10000);
}

/* ---- resume: is the log a prefix of FILE? ---- */

/* The configuration commands/resume.c checks with. */
static void as_resume(struct rig *g)
{
	g->cfg = (struct verify_config){.method = VERIFY_HASH,
					.chunk = 1u << 20,
					.depth = 4,
					.whole_log = true,
					.local_max = UINT64_MAX};
}

static void resume_log_is_a_prefix(void **state)
{
	struct rig *g = *state;
	as_resume(g);
	contents(g, 1536 * 1024, 3u << 20);
	found(g, VERIFY_REMOTE_SHORTER, 1536 * 1024);
	assert_int_equal(g->r.remote_length, 1536 * 1024); /* held */
}

static void resume_log_is_the_file(void **state)
{
	struct rig *g = *state;
	as_resume(g);
	contents(g, 3u << 20, 3u << 20);
	found(g, VERIFY_SAME, 0);
	assert_int_equal(g->r.remote_length, 3u << 20);
}

static void resume_log_is_not_a_prefix(void **state)
{
	struct rig *g = *state;
	as_resume(g);
	contents(g, 1536 * 1024, 3u << 20);
	g->log[LOG_START + 1100000] ^= 0x80;
	found(g, VERIFY_DIFFERENT, 1100000);
}

static void resume_log_longer_than_the_file(void **state)
{
	struct rig *g = *state;
	as_resume(g);
	contents(g, 3u << 20, 1u << 20);
	found(g, VERIFY_REMOTE_LONGER, 1u << 20);
	assert_int_equal(g->r.local_length, 1u << 20);
	assert_int_equal(g->r.remote_length, 3u << 20);
}

/* ---- flow control ---- */

/* Forty chunks, three requests in flight at most, answered newest first:
 * still evaluated in order. */
static void never_more_than_depth_in_flight(void **state)
{
	struct rig *g = *state;
	g->cfg.depth = 3;
	g->newest_first = true;
	contents(g, 40 * CHUNK, 40 * CHUNK);
	found(g, VERIFY_SAME, 0);
	assert_int_equal(g->most, 3);
	assert_int_equal(g->hashes, 40);
}

/* The receiver's credits bound the depth asked for. */
static void credits_bound_the_depth(void **state)
{
	struct rig *g = *state;
	g->cfg.depth = 8;
	g->offer.credits = 2;
	contents(g, LEN, LEN);
	found(g, VERIFY_SAME, 0);
	assert_int_equal(g->plan.depth, 2);
	assert_int_equal(g->most, 2);
}

/* A first difference stops the asking: what is in flight is drained. */
static void a_difference_stops_the_asking(void **state)
{
	struct rig *g = *state;
	contents(g, 40 * CHUNK, 40 * CHUNK);
	g->log[LOG_START + CHUNK + 5] ^= 1;
	found(g, VERIFY_DIFFERENT, CHUNK + 5);
	/* Chunks 0..3, then one more as chunk 0 was evaluated. */
	assert_int_equal(g->hashes, 5);
	assert_int_equal(g->reads, 1);
}

/* -v: every differing range, adjacent chunks merged, in order. */
static void all_ranges(void **state)
{
	struct rig *g = *state;
	g->cfg.all_ranges = true;
	g->newest_first = true;
	contents(g, LEN - 100, LEN);
	g->log[LOG_START + CHUNK + 9] ^= 1;
	g->log[LOG_START + 2 * CHUNK + 4000] ^= 1;
	g->log[LOG_START + 5 * CHUNK] ^= 1;
	found(g, VERIFY_DIFFERENT, CHUNK + 9);
	assert_int_equal(g->nranges, 3);
	assert_int_equal(g->ranges[0][0], CHUNK);
	assert_int_equal(g->ranges[0][1], 3 * CHUNK);
	assert_int_equal(g->ranges[1][0], 5 * CHUNK);
	assert_int_equal(g->ranges[1][1], 6 * CHUNK);
	assert_int_equal(g->ranges[2][0], 10 * CHUNK);
	assert_int_equal(g->ranges[2][1], LEN);
	assert_int_equal(g->r.compared, LEN - 100);
}

/* ---- trouble ---- */

static void failed_with(struct rig *g, int rc, int code, const char *text)
{
	assert_int_equal(rc, code);
	assert_int_equal(g->err.code, code);
	assert_string_equal(g->err.msg, text);
	assert_int_equal(verify_pipeline_state(g->p), VERIFY_FAILED);
	assert_true(verify_pipeline_finished(g->p));
}

static void peer_refuses(void **state)
{
	struct rig *g = *state;
	contents(g, LEN, LEN);
	prepare(g);
	assert_int_equal(verify_pipeline_start(g->p, &g->err), 0);
	assert_int_equal(serve_one(g), 0);
	int rc = verify_pipeline_refused(g->p, "range not committed", &g->err);
	failed_with(g, rc, RS_E_INVAL,
		    "the receiver could not serve the verify (range not "
		    "committed)");
	/* Late answers change nothing. */
	rc = serve_one(g);
	assert_int_equal(rc, RS_E_INVAL);
	assert_int_equal(verify_pipeline_state(g->p), VERIFY_FAILED);
}

static void unexpected_answers(void **state)
{
	struct rig *g = *state;
	contents(g, LEN, LEN);
	prepare(g);
	assert_int_equal(verify_pipeline_start(g->p, &g->err), 0);
	int rc = verify_pipeline_hashed(g->p, 99, 0, &g->err);
	failed_with(g, rc, RS_E_INVAL,
		    "the receiver could not serve the verify (unexpected "
		    "reply)");
}

/* A hash answer to a read request, or a staging to a hash, is not due. */
static void answers_of_the_wrong_kind(void **state)
{
	struct rig *g = *state;
	contents(g, LEN, LEN);
	prepare(g);
	assert_int_equal(verify_pipeline_start(g->p, &g->err), 0);
	int rc = verify_pipeline_staged(g->p, g->q[0].id, &g->err);
	failed_with(g, rc, RS_E_INVAL,
		    "the receiver could not serve the verify (unexpected "
		    "reply)");
}

static void bytes_nobody_asked_for(void **state)
{
	struct rig *g = *state;
	g->cfg.method = VERIFY_READ;
	contents(g, LEN, LEN);
	prepare(g);
	assert_int_equal(verify_pipeline_start(g->p, &g->err), 0);
	int rc = verify_pipeline_read(g->p, 4, g->slots, &g->err);
	failed_with(g, rc, RS_E_PROVIDER,
		    "an RDMA read completed for no chunk");
}

/* The link drops after three answers: the pipeline reports the loss and
 * what it had compared by then. */
static void link_lost_mid_way(void **state)
{
	struct rig *g = *state;
	contents(g, LEN, LEN);
	prepare(g);
	assert_int_equal(verify_pipeline_start(g->p, &g->err), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(serve_one(g), 0);
	int rc = verify_pipeline_lost(g->p, "pmemhost:7204/a", &g->err);
	failed_with(g, rc, RS_E_LOST,
		    "connection to pmemhost:7204/a lost while verifying");
	verify_pipeline_result(g->p, &g->r);
	assert_int_equal(g->r.compared, 3 * CHUNK);
	assert_int_equal(g->r.local_length, 7 * CHUNK); /* 3 + depth read */
	assert_int_equal(g->r.outcome, VERIFY_SAME);
}

/* Posting fails on the sixth request: the link is gone. */
static void post_fails_mid_way(void **state)
{
	struct rig *g = *state;
	g->posts_left = 5;
	contents(g, LEN, LEN);
	int rc = compare(g);
	failed_with(g, rc, RS_E_LOST,
		    "cannot post a verify request: link down");
	assert_int_equal(g->hashes, 5);
	assert_int_equal(g->r.compared, 2 * CHUNK);
	assert_int_equal(g->r.local_length, 6 * CHUNK);
}

/* Posting the read-back of the differing chunk fails. */
static void read_back_post_fails(void **state)
{
	struct rig *g = *state;
	g->posts_left = 11;
	contents(g, LEN, LEN);
	g->log[LOG_START + LEN - 1] ^= 1;
	int rc = compare(g);
	failed_with(g, rc, RS_E_LOST,
		    "cannot post a verify request: link down");
	assert_int_equal(g->hashes, 11);
}

static void file_unreadable(void **state)
{
	struct rig *g = *state;
	g->file_fails_at = 3;
	contents(g, LEN, LEN);
	int rc = compare(g);
	failed_with(g, rc, RS_E_IO, "cannot read f: Input/output error");
}

/* ---- digest ---- */

static uint64_t expected_digest(const struct rig *g, uint64_t len,
				uint64_t size)
{
	uint64_t h = 0;
	for (uint64_t off = 0; off < len; off += size) {
		uint64_t n = len - off < size ? len - off : size;
		uint64_t le = htole64(XXH3_64bits(g->log + LOG_START + off, n));
		h = XXH3_64bits_withSeed(&le, sizeof(le), h);
	}
	return h;
}

static int digest(struct rig *g, uint32_t chunk)
{
	plan(g);
	struct verify_link link = fake_link(g);
	assert_int_equal(
	    verify_pipeline_digest(&g->p, &g->plan, &link, chunk, &g->err), 0);
	assert_int_equal(verify_pipeline_state(g->p), VERIFY_DIGESTING);
	int rc = verify_pipeline_start(g->p, &g->err);
	return rc ? rc : serve(g);
}

/* The digest's chunks are the asked size, whatever the ring's slot. */
static void digest_folds_every_chunk(void **state)
{
	struct rig *g = *state;
	g->offer.pool_readable = false;
	g->offer.ring_readable = true;
	g->offer.ring_slot = 1024;
	g->newest_first = true;
	contents(g, LEN, 0);
	assert_int_equal(digest(g, CHUNK), 0);
	assert_int_equal(verify_pipeline_state(g->p), VERIFY_DONE);
	assert_int_equal(verify_pipeline_digest_value(g->p),
			 expected_digest(g, LEN, CHUNK));
	assert_int_equal(g->hashes, 11);
	assert_int_equal(g->most, 4);
}

static void digest_of_a_range(void **state)
{
	struct rig *g = *state;
	g->cfg.whole_log = false;
	g->cfg.length = 3 * CHUNK;
	contents(g, LEN, 0);
	assert_int_equal(digest(g, CHUNK), 0);
	assert_int_equal(verify_pipeline_digest_value(g->p),
			 expected_digest(g, 3 * CHUNK, CHUNK));
	assert_int_equal(g->hashes, 3);
}

static void digest_of_an_empty_log(void **state)
{
	struct rig *g = *state;
	contents(g, 0, 0);
	assert_int_equal(digest(g, CHUNK), 0);
	assert_int_equal(verify_pipeline_state(g->p), VERIFY_DONE);
	assert_int_equal(verify_pipeline_digest_value(g->p), 0);
	assert_int_equal(g->hashes, 0);
}

#define T(f) cmocka_unit_test_setup_teardown(f, rig_setup, rig_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(identical_by_hash),
	    T(identical_by_read),
	    T(identical_by_read_through_the_ring),
	    T(differs_in_the_first_chunk),
	    T(differs_in_a_middle_chunk),
	    T(differs_in_the_last_chunk),
	    T(halving_asks_log2_chunk_hashes),
	    T(file_longer_than_the_log),
	    T(file_longer_at_a_chunk_boundary),
	    T(file_shorter_than_the_log),
	    T(a_byte_before_a_length),
	    T(empty_log),
	    T(empty_log_and_file),
	    T(a_range_of_the_log),
	    T(resume_log_is_a_prefix),
	    T(resume_log_is_the_file),
	    T(resume_log_is_not_a_prefix),
	    T(resume_log_longer_than_the_file),
	    T(never_more_than_depth_in_flight),
	    T(credits_bound_the_depth),
	    T(a_difference_stops_the_asking),
	    T(all_ranges),
	    T(peer_refuses),
	    T(unexpected_answers),
	    T(answers_of_the_wrong_kind),
	    T(bytes_nobody_asked_for),
	    T(link_lost_mid_way),
	    T(post_fails_mid_way),
	    T(read_back_post_fails),
	    T(file_unreadable),
	    T(digest_folds_every_chunk),
	    T(digest_of_a_range),
	    T(digest_of_an_empty_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
