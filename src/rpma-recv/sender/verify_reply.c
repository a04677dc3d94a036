#include "sender/verify_reply.h"

#include "cli/log.h"
#include "error.h"
#include "proto/pool_layout.h"
#include "rotation/rotation.h"

#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#define ARCHIVE_PIECE (64u * 1024) /* read from the archive at a time */

/* Where the log's committed content lies, in log positions. */
struct log_span {
	uint64_t first, base, end;
};

static struct log_span span_of(const struct recv_pmem_target *t,
			       const struct recv_rotation *rot)
{
	if (rot)
		return (struct log_span){recv_rotation_first(rot),
					 recv_rotation_base(rot),
					 recv_rotation_end(rot)};
	uint64_t used = recv_pmem_target_write_offset(t) - t->start;
	return (struct log_span){0, 0, used};
}

static uint8_t check(const struct log_span *span, const struct recv_ring *ring,
		     bool verify_allowed, const struct rs_msg *req)
{
	if ((req->type != RS_MSG_HASH && req->type != RS_MSG_READ_STAGE) ||
	    !verify_allowed)
		return RS_MSG_BAD_REQUEST;
	if (rs_log_range_check(req->offset, req->length, span->first, span->end,
			       0))
		return RS_MSG_OUT_OF_RANGE;
	if (req->type == RS_MSG_READ_STAGE &&
	    (!ring->base || req->ring_offset > ring->length ||
	     req->length > ring->length - req->ring_offset))
		return RS_MSG_OUT_OF_RANGE;
	return RS_MSG_OK;
}

/* The pool's bytes from log position pos (at or after the base). */
static const uint8_t *in_pool(const struct recv_pmem_target *t,
			      const struct log_span *span, uint64_t pos)
{
	return t->base + t->start + (pos - span->base);
}

/* Hashes [pos, +len): the archive's part read in pieces, then the pool's
 * in place. */
static int hash_range(const struct recv_pmem_target *t,
		      const struct recv_rotation *rot,
		      const struct log_span *span, uint64_t pos, uint64_t len,
		      uint64_t *hash, struct rs_error *err)
{
	static _Thread_local uint8_t piece[ARCHIVE_PIECE];
	XXH3_state_t st;
	XXH3_64bits_reset(&st);
	while (len && pos < span->base) {
		uint64_t n = span->base - pos < len ? span->base - pos : len;
		n = n < sizeof(piece) ? n : sizeof(piece);
		int rc = recv_rotation_read_archive(rot, pos, piece, n, err);
		if (rc)
			return rc;
		XXH3_64bits_update(&st, piece, n);
		pos += n;
		len -= n;
	}
	if (len)
		XXH3_64bits_update(&st, in_pool(t, span, pos), len);
	*hash = XXH3_64bits_digest(&st);
	return 0;
}

/* Copies [pos, +len) to dst: the archive's part, then the pool's. */
static int copy_range(const struct recv_pmem_target *t,
		      const struct recv_rotation *rot,
		      const struct log_span *span, uint64_t pos, uint64_t len,
		      uint8_t *dst, struct rs_error *err)
{
	uint64_t archived = pos < span->base ? span->base - pos : 0;
	archived = archived < len ? archived : len;
	int rc = archived
		     ? recv_rotation_read_archive(rot, pos, dst, archived, err)
		     : 0;
	if (!rc && len > archived)
		memcpy(dst + archived, in_pool(t, span, pos + archived),
		       len - archived);
	return rc;
}

bool recv_verify_apply(const struct recv_pmem_target *target,
		       const struct recv_rotation *rot,
		       const struct recv_ring *ring, bool verify_allowed,
		       const struct rs_msg *req, struct rs_msg *reply)
{
	*reply = (struct rs_msg){
	    .seq = req->seq, .offset = req->offset, .length = req->length};
	reply->type = req->type == RS_MSG_READ_STAGE ? RS_MSG_READ_STAGE_DONE
						     : RS_MSG_HASH_DONE;
	struct log_span span = span_of(target, rot);
	reply->status = check(&span, ring, verify_allowed, req);
	if (reply->status != RS_MSG_OK)
		return false;
	struct rs_error err = {0};
	int rc;
	if (req->type == RS_MSG_HASH) {
		rc = hash_range(target, rot, &span, req->offset, req->length,
				&reply->hash, &err);
	} else {
		rc = copy_range(target, rot, &span, req->offset, req->length,
				ring->base + req->ring_offset, &err);
		reply->ring_offset = req->ring_offset;
	}
	if (rc) {
		rs_err("%s", err.msg);
		reply->hash = 0;
		reply->status = RS_MSG_ARCHIVE_FAILED;
	}
	return rc == 0;
}
