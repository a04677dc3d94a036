/* The verify pipeline: which chunks of FILE and of the remote log are
 * compared, the hashes asked for and compared, the chunks read back, the
 * first differing byte, how many requests are in flight, where the log
 * ends. No RDMA and no file here: it asks its link to post requests and
 * reads FILE from its source (verify/rdma.h and verify/file.h in
 * rpma-send, fakes in the unit tests), and is driven by the answers:
 *
 *   COMPARING --a difference, not all_ranges--> DRAINING
 *   COMPARING, DRAINING --nothing in flight, both sides ended-->
 *       READING_BACK (a byte differs, the receiver grants reads)
 *       HALVING      (a byte differs, hashes only)
 *       DONE         (same, or only the lengths differ)
 *   READING_BACK --the chunk's bytes--> DONE
 *   HALVING --a half's hash; one byte left--> DONE
 *   DIGESTING --every chunk's hash folded--> DONE
 *   any --a refusal, a lost link, a failed post or read--> FAILED
 *
 * At most plan.depth requests are in flight; a chunk's answer is evaluated
 * in order, once every chunk before it was. Request ids are chunk indexes:
 * the low 32 bits identify an answer (they go on the wire), and id % depth
 * is the slot a request occupies on both sides. */
#ifndef SEND_VERIFY_PIPELINE_H
#define SEND_VERIFY_PIPELINE_H

#include "verify/config.h"
#include "verify/plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_error;
struct verify_pipeline;

enum verify_state {
	VERIFY_COMPARING,    /* chunks asked about, evaluated in order */
	VERIFY_DRAINING,     /* stopped at a difference: answers still due */
	VERIFY_READING_BACK, /* the first differing chunk is read back */
	VERIFY_HALVING,	     /* ... or narrowed by hashes of its halves */
	VERIFY_DIGESTING,    /* folding the receiver's hashes in order */
	VERIFY_DONE,
	VERIFY_FAILED,
};

const char *verify_state_name(enum verify_state s);

/* How requests reach the receiver. Each returns 0, or a negative enum
 * rs_errc with the reason in err (the link is unusable). */
struct verify_link {
	void *ctx;
	/* Asks for the XXH3 of len log bytes at log_offset (absolute);
	 * answered by verify_pipeline_hashed(id). */
	int (*post_hash)(void *ctx, uint64_t id, uint64_t log_offset,
			 uint64_t len, struct rs_error *err);
	/* Asks for the bytes themselves; answered by verify_pipeline_read(id)
	 * or, where the receiver first stages them, verify_pipeline_staged(id).
	 */
	int (*post_read)(void *ctx, uint64_t id, uint64_t log_offset,
			 uint64_t len, struct rs_error *err);
	/* Reads the len bytes the receiver staged for id; answered by
	 * verify_pipeline_read(id). */
	int (*read_staged)(void *ctx, uint64_t id, uint64_t len,
			   struct rs_error *err);
};

/* Where FILE's bytes come from. */
struct verify_source {
	void *ctx;
	/* Reads up to len bytes into buf, fewer only where the input ends;
	 * sets *got. 0, or a negative enum rs_errc with the reason in err. */
	int (*read)(void *ctx, uint8_t *buf, size_t len, size_t *got,
		    struct rs_error *err);
};

/* What to compare the plan's range with. */
struct verify_compare {
	struct verify_source source;
	uint64_t local_max; /* source bytes to compare at most */
	bool all_ranges;    /* go on past the first difference */
	/* all_ranges: each run of differing bytes [start, end), in order,
	 * adjacent chunks merged. May be NULL. */
	void (*range)(void *ctx, uint64_t start, uint64_t end);
	void *range_ctx;
};

/* A pipeline comparing the source with the plan's range. RS_E_NOMEM. */
int verify_pipeline_compare(struct verify_pipeline **p,
			    const struct verify_plan *plan,
			    const struct verify_link *link,
			    const struct verify_compare *what,
			    struct rs_error *err);
/* A pipeline folding the receiver's hash of every `chunk` bytes of the
 * plan's range (the plan's chunk is ignored, so that every receiver of the
 * same bytes gives the same digest). RS_E_NOMEM. */
int verify_pipeline_digest(struct verify_pipeline **p,
			   const struct verify_plan *plan,
			   const struct verify_link *link, uint32_t chunk,
			   struct rs_error *err);
void verify_pipeline_delete(struct verify_pipeline **p);

/* Posts the first requests (maybe all of them: then it may be DONE). */
int verify_pipeline_start(struct verify_pipeline *p, struct rs_error *err);

/* Events. Each returns 0, or a negative enum rs_errc with the reason in
 * err, the pipeline FAILED: RS_E_INVAL for an answer that is not due or a
 * refusal (the verify cannot go on as asked: trouble, exit 2, not the
 * receiver refusing us a session, RS_E_REJECTED), RS_E_PROVIDER for bytes
 * nobody asked for, RS_E_LOST for a lost link, or what the link or the
 * source said. */
/* The receiver's hash for request id. */
int verify_pipeline_hashed(struct verify_pipeline *p, uint64_t id,
			   uint64_t hash, struct rs_error *err);
/* The receiver staged the bytes of request id: they are to be read. */
int verify_pipeline_staged(struct verify_pipeline *p, uint64_t id,
			   struct rs_error *err);
/* The bytes of request id are at bytes: valid until the next request in
 * the same slot is posted. */
int verify_pipeline_read(struct verify_pipeline *p, uint64_t id,
			 const uint8_t *bytes, struct rs_error *err);
/* The receiver could not serve a request (why: its reason). */
int verify_pipeline_refused(struct verify_pipeline *p, const char *why,
			    struct rs_error *err);
/* The link to the receiver (named peer) is gone. */
int verify_pipeline_lost(struct verify_pipeline *p, const char *peer,
			 struct rs_error *err);

enum verify_state verify_pipeline_state(const struct verify_pipeline *p);
/* DONE or FAILED: nothing more will happen. */
bool verify_pipeline_finished(const struct verify_pipeline *p);
/* Requests posted and not answered. */
unsigned verify_pipeline_in_flight(const struct verify_pipeline *p);
/* What was found so far (all of it once DONE); seconds are left 0. */
void verify_pipeline_result(const struct verify_pipeline *p,
			    struct verify_result *r);
/* DIGESTING, once DONE: the folded hashes. */
uint64_t verify_pipeline_digest_value(const struct verify_pipeline *p);

#endif
