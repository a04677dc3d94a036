#include "verify/pipeline.h"

#include "error.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* One request: a chunk being compared, a half being hashed, a chunk read
 * back, or a chunk of a digest. */
struct chunk {
	uint64_t index; /* the request id */
	uint64_t asked; /* log bytes asked about */
	uint64_t local_len;
	uint64_t remote_len;
	uint64_t remote_hash;
	const uint8_t *remote; /* read back: the replica's bytes */
	uint8_t *local;	       /* the local bytes (comparing) */
	bool by_hash;
	bool answered; /* the hash or the bytes are here */
};

struct verify_pipeline {
	enum verify_state state;
	struct verify_plan plan;
	struct verify_link link;
	struct verify_compare what;
	uint32_t digest_chunk;
	uint64_t digest;
	uint8_t *bufs; /* every slot's local bytes, then diff_local's */
	struct chunk *chunks;
	uint64_t next;	 /* next chunk index to use */
	uint64_t oldest; /* oldest chunk not evaluated */
	bool input_done;
	bool ended; /* both sides ended: nothing more to ask */
	/* The first difference, and a copy of its chunk's local bytes. */
	bool found;
	uint64_t diff_chunk_offset;
	uint64_t diff_len; /* bytes both sides have in that chunk */
	uint8_t *diff_local;
	uint64_t lo, n; /* HALVING: the bytes of that chunk still suspect */
	struct verify_result result;
	/* all_ranges: a run of differing chunks not yet reported. */
	bool in_range;
	uint64_t range_start, range_end;
};

static const char *const state_names[] = {
    [VERIFY_COMPARING] = "comparing",
    [VERIFY_DRAINING] = "draining",
    [VERIFY_READING_BACK] = "reading back",
    [VERIFY_HALVING] = "halving",
    [VERIFY_DIGESTING] = "digesting",
    [VERIFY_DONE] = "done",
    [VERIFY_FAILED] = "failed",
};

const char *verify_state_name(enum verify_state s)
{
	return s <= VERIFY_FAILED ? state_names[s] : "unknown";
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static struct chunk *slot_of(struct verify_pipeline *p, uint64_t index)
{
	return &p->chunks[index % p->plan.depth];
}

/* The slot for the next request, numbered. */
static struct chunk *take_next(struct verify_pipeline *p)
{
	struct chunk *c = slot_of(p, p->next);
	c->index = p->next++;
	return c;
}

static int fail(struct verify_pipeline *p, int code)
{
	p->state = VERIFY_FAILED;
	return code;
}

/* -v: differing chunks are reported as merged ranges. */
static void flush_range(struct verify_pipeline *p)
{
	if (p->in_range && p->what.range)
		p->what.range(p->what.range_ctx, p->range_start, p->range_end);
	p->in_range = false;
}

static void note_range(struct verify_pipeline *p, uint64_t start, uint64_t end)
{
	if (p->in_range && start == p->range_end) {
		p->range_end = end;
		return;
	}
	flush_range(p);
	p->in_range = true;
	p->range_start = start;
	p->range_end = end;
}

static int finish(struct verify_pipeline *p)
{
	p->state = VERIFY_DONE;
	flush_range(p);
	return 0;
}

/* Asks about len remote bytes at off (from the range's start) for c. */
static int request(struct verify_pipeline *p, struct chunk *c, uint64_t off,
		   uint64_t len, bool by_hash, struct rs_error *err)
{
	c->asked = len;
	c->by_hash = by_hash;
	c->answered = false;
	c->remote = NULL;
	uint64_t at = p->plan.log_offset + off;
	int rc = by_hash
		     ? p->link.post_hash(p->link.ctx, c->index, at, len, err)
		     : p->link.post_read(p->link.ctx, c->index, at, len, err);
	if (!rc)
		return 0;
	rs_error_wrap(err, "cannot post a verify request");
	return fail(p, rc);
}

/* Reads the local bytes of the chunk at off into c. */
static int read_local(struct verify_pipeline *p, struct chunk *c, uint64_t off,
		      struct rs_error *err)
{
	uint64_t want = 0;
	if (off < p->what.local_max)
		want = min_u64(p->what.local_max - off, p->plan.chunk);
	size_t got = 0;
	if (!p->input_done && want > 0) {
		int rc = p->what.source.read(p->what.source.ctx, c->local,
					     (size_t)want, &got, err);
		if (rc)
			return fail(p, rc);
	}
	p->result.local_length += got;
	if (got < want || want == 0)
		p->input_done = true;
	c->local_len = got;
	return 0;
}

/* Reads the next local chunk and asks about the remote one; notes when
 * both sides have ended. */
static int issue_compare(struct verify_pipeline *p, struct rs_error *err)
{
	uint64_t off = p->next * p->plan.chunk;
	struct chunk *c = slot_of(p, p->next);
	int rc = read_local(p, c, off, err);
	if (rc)
		return rc;
	c->remote_len = 0;
	if (off < p->plan.remote_len)
		c->remote_len =
		    min_u64(p->plan.remote_len - off, p->plan.chunk);
	if (c->local_len == 0 && c->remote_len == 0) {
		p->ended = true;
		return 0;
	}
	take_next(p);
	uint64_t both = min_u64(c->local_len, c->remote_len);
	if (both == 0) { /* a pure length difference needs no question */
		c->asked = 0;
		c->answered = true;
		return 0;
	}
	return request(p, c, off, both, p->plan.by_hash, err);
}

static uint64_t digest_chunks(const struct verify_pipeline *p)
{
	uint64_t size = p->digest_chunk;
	return (p->plan.remote_len + size - 1) / size;
}

static int issue_digest(struct verify_pipeline *p, struct rs_error *err)
{
	struct chunk *c = take_next(p);
	uint64_t off = c->index * p->digest_chunk;
	uint64_t len = min_u64(p->plan.remote_len - off, p->digest_chunk);
	return request(p, c, off, len, true, err);
}

/* Records the first difference, found in chunk c at off. */
static void note_first(struct verify_pipeline *p, const struct chunk *c,
		       uint64_t off, bool same_bytes)
{
	p->found = true;
	p->diff_chunk_offset = off;
	p->diff_len = same_bytes ? 0 : c->asked;
	if (!same_bytes)
		memcpy(p->diff_local, c->local, c->asked);
	else /* only the lengths differ */
		p->result.first_difference = off + c->asked;
	p->result.outcome = !same_bytes ? VERIFY_DIFFERENT
			    : c->local_len > c->remote_len
				? VERIFY_REMOTE_SHORTER
				: VERIFY_REMOTE_LONGER;
}

/* Compares the oldest chunk once its answer is in. Returns true when the
 * comparison can stop. */
static bool evaluate(struct verify_pipeline *p, const struct chunk *c)
{
	uint64_t off = c->index * p->plan.chunk;
	uint64_t both = c->asked;
	bool same_bytes =
	    both == 0 ||
	    (c->by_hash ? XXH3_64bits(c->local, both) == c->remote_hash
			: memcmp(c->local, c->remote, both) == 0);
	p->result.compared += both;
	if (same_bytes && c->local_len == c->remote_len)
		return false;
	if (p->what.all_ranges)
		note_range(p, off,
			   off + (c->local_len > c->remote_len
				      ? c->local_len
				      : c->remote_len));
	if (!p->found)
		note_first(p, c, off, same_bytes);
	return !p->what.all_ranges;
}

static void fold(struct verify_pipeline *p, const struct chunk *c)
{
	uint64_t le = htole64(c->remote_hash);
	p->digest = XXH3_64bits_withSeed(&le, sizeof(le), p->digest);
}

static int halve(struct verify_pipeline *p, struct rs_error *err)
{
	if (p->n <= 1) {
		p->result.first_difference = p->diff_chunk_offset + p->lo;
		return finish(p);
	}
	return request(p, take_next(p), p->diff_chunk_offset + p->lo, p->n / 2,
		       true, err);
}

/* Every chunk is evaluated: narrows a differing one down to its first
 * differing byte, by reading it back or, where no read is granted, by
 * halving it with hashes. Nothing else is in flight here. */
static int locate(struct verify_pipeline *p, struct rs_error *err)
{
	if (!p->found || p->result.outcome != VERIFY_DIFFERENT)
		return finish(p);
	if (p->plan.can_read) {
		p->state = VERIFY_READING_BACK;
		return request(p, take_next(p), p->diff_chunk_offset,
			       p->diff_len, false, err);
	}
	p->state = VERIFY_HALVING;
	p->lo = 0;
	p->n = p->diff_len;
	return halve(p, err);
}

static bool wants_more(const struct verify_pipeline *p)
{
	if (p->state == VERIFY_DIGESTING)
		return p->next < digest_chunks(p);
	return p->state == VERIFY_COMPARING && !p->ended;
}

/* COMPARING, DRAINING and DIGESTING: keeps up to depth requests in
 * flight and takes the answers in order. */
static int advance(struct verify_pipeline *p, struct rs_error *err)
{
	for (;;) {
		while (wants_more(p) && p->next - p->oldest < p->plan.depth) {
			int rc = p->state == VERIFY_DIGESTING
				     ? issue_digest(p, err)
				     : issue_compare(p, err);
			if (rc)
				return rc;
		}
		if (p->next == p->oldest)
			return p->state == VERIFY_DIGESTING ? finish(p)
							    : locate(p, err);
		struct chunk *c = slot_of(p, p->oldest);
		if (!c->answered)
			return 0; /* an answer is due */
		p->oldest++;
		if (p->state == VERIFY_DIGESTING)
			fold(p, c);
		else if (p->state == VERIFY_COMPARING && evaluate(p, c))
			p->state = VERIFY_DRAINING; /* drain, then end */
	}
}

static int read_back_done(struct verify_pipeline *p, const struct chunk *c)
{
	uint64_t i = 0;
	while (i < p->diff_len && c->remote[i] == p->diff_local[i])
		i++;
	p->result.first_difference = p->diff_chunk_offset + i;
	return finish(p);
}

static int halved(struct verify_pipeline *p, const struct chunk *c,
		  struct rs_error *err)
{
	uint64_t half = p->n / 2;
	if (c->remote_hash == XXH3_64bits(p->diff_local + p->lo, half)) {
		p->lo += half;
		p->n -= half;
	} else {
		p->n = half;
	}
	return halve(p, err);
}

/* c's answer is in: the state decides what follows. */
static int answered(struct verify_pipeline *p, struct chunk *c,
		    struct rs_error *err)
{
	c->answered = true;
	switch (p->state) {
	case VERIFY_READING_BACK:
		return read_back_done(p, c);
	case VERIFY_HALVING:
		return halved(p, c, err);
	default:
		return advance(p, err);
	}
}

/* The request id is in flight and asked for this kind of answer. */
static struct chunk *due(struct verify_pipeline *p, uint64_t id, bool by_hash)
{
	if (verify_pipeline_finished(p))
		return NULL;
	struct chunk *c = slot_of(p, id);
	if ((uint32_t)c->index != (uint32_t)id || c->answered ||
	    c->by_hash != by_hash)
		return NULL;
	return c;
}

int verify_pipeline_hashed(struct verify_pipeline *p, uint64_t id,
			   uint64_t hash, struct rs_error *err)
{
	struct chunk *c = due(p, id, true);
	if (!c)
		return verify_pipeline_refused(p, "unexpected reply", err);
	c->remote_hash = hash;
	return answered(p, c, err);
}

int verify_pipeline_staged(struct verify_pipeline *p, uint64_t id,
			   struct rs_error *err)
{
	struct chunk *c = due(p, id, false);
	if (!c)
		return verify_pipeline_refused(p, "unexpected reply", err);
	int rc = p->link.read_staged(p->link.ctx, c->index, c->asked, err);
	if (!rc)
		return 0;
	rs_error_wrap(err, "cannot post a verify request");
	return fail(p, rc);
}

int verify_pipeline_read(struct verify_pipeline *p, uint64_t id,
			 const uint8_t *bytes, struct rs_error *err)
{
	struct chunk *c = due(p, id, false);
	if (!c)
		return fail(p, rs_error_set(err, RS_E_PROVIDER, 0,
					    "an RDMA read completed for no "
					    "chunk"));
	c->remote = bytes;
	return answered(p, c, err);
}

int verify_pipeline_refused(struct verify_pipeline *p, const char *why,
			    struct rs_error *err)
{
	return fail(p, rs_error_set(err, RS_E_INVAL, 0,
				    "the receiver could not serve the verify "
				    "(%s)",
				    why));
}

int verify_pipeline_lost(struct verify_pipeline *p, const char *peer,
			 struct rs_error *err)
{
	return fail(p, rs_error_set(err, RS_E_LOST, 0,
				    "connection to %s lost while verifying",
				    peer));
}

int verify_pipeline_start(struct verify_pipeline *p, struct rs_error *err)
{
	return advance(p, err);
}

static int pipeline_new(struct verify_pipeline **out,
			const struct verify_plan *plan,
			const struct verify_link *link, size_t buf_len,
			struct rs_error *err)
{
	struct verify_pipeline *p = calloc(1, sizeof(*p));
	if (p)
		p->chunks = calloc(plan->depth, sizeof(*p->chunks));
	if (p && buf_len)
		p->bufs = malloc(buf_len);
	if (!p || !p->chunks || (buf_len && !p->bufs)) {
		verify_pipeline_delete(&p);
		return rs_error_set(err, RS_E_NOMEM, ENOMEM,
				    "cannot allocate %zu bytes of verify "
				    "buffers",
				    buf_len);
	}
	p->plan = *plan;
	p->link = *link;
	for (uint16_t i = 0; i < plan->depth; i++) {
		p->chunks[i].index = UINT64_MAX; /* matches no answer */
		p->chunks[i].answered = true;
	}
	p->result.remote_length = plan->remote_len;
	*out = p;
	return 0;
}

int verify_pipeline_compare(struct verify_pipeline **out,
			    const struct verify_plan *plan,
			    const struct verify_link *link,
			    const struct verify_compare *what,
			    struct rs_error *err)
{
	size_t chunk = plan->chunk;
	int rc = pipeline_new(out, plan, link, chunk * (plan->depth + 1u), err);
	if (rc)
		return rc;
	struct verify_pipeline *p = *out;
	p->state = VERIFY_COMPARING;
	p->what = *what;
	for (uint16_t i = 0; i < plan->depth; i++)
		p->chunks[i].local = p->bufs + chunk * i;
	p->diff_local = p->bufs + chunk * plan->depth;
	return 0;
}

int verify_pipeline_digest(struct verify_pipeline **out,
			   const struct verify_plan *plan,
			   const struct verify_link *link, uint32_t chunk,
			   struct rs_error *err)
{
	int rc = pipeline_new(out, plan, link, 0, err);
	if (rc)
		return rc;
	(*out)->state = VERIFY_DIGESTING;
	(*out)->digest_chunk = chunk;
	return 0;
}

void verify_pipeline_delete(struct verify_pipeline **p)
{
	if (!*p)
		return;
	free((*p)->bufs);
	free((*p)->chunks);
	free(*p);
	*p = NULL;
}

enum verify_state verify_pipeline_state(const struct verify_pipeline *p)
{
	return p->state;
}

bool verify_pipeline_finished(const struct verify_pipeline *p)
{
	return p->state == VERIFY_DONE || p->state == VERIFY_FAILED;
}

unsigned verify_pipeline_in_flight(const struct verify_pipeline *p)
{
	unsigned n = 0;
	for (uint16_t i = 0; i < p->plan.depth; i++)
		n += !p->chunks[i].answered;
	return n;
}

void verify_pipeline_result(const struct verify_pipeline *p,
			    struct verify_result *r)
{
	*r = p->result;
}

uint64_t verify_pipeline_digest_value(const struct verify_pipeline *p)
{
	return p->digest;
}
