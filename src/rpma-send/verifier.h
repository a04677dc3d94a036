/* Verifying a replica, like cmp(1): compares a local file (or stream) with a
 * range of the remote log, either by XXH3 hashes of fixed chunks computed by
 * the receiver (only 8 bytes per chunk cross the wire) or by reading the
 * replica back with RDMA reads. The first differing byte is found by reading
 * back just that chunk where the receiver grants remote read, else by halving
 * the chunk with hashes. */
#ifndef SEND_VERIFIER_H
#define SEND_VERIFIER_H

#include "cli/endpoint.h"
#include "proto/auth.h"

#include <stdbool.h>
#include <stdint.h>

enum verify_method {
	VERIFY_HASH = 0,
	VERIFY_READ = 1,
};

/* Returns 0 and sets *m, or -1 for an unknown name. */
int verify_method_parse(const char *name, enum verify_method *m);

enum verify_outcome {
	VERIFY_SAME = 0,
	VERIFY_DIFFERENT,      /* a byte differs at first_difference */
	VERIFY_REMOTE_SHORTER, /* the log ends at first_difference */
	VERIFY_REMOTE_LONGER,  /* the local input ends at first_difference */
};

#define VERIFY_DEPTH_DEFAULT 4 /* chunks read or hashed at once */

struct verify_config {
	struct rs_target remote;
	int timeout_ms;
	const struct rs_auth_key *auth_key; /* --auth-key, or NULL */
	enum verify_method method;
	uint32_t chunk;	    /* bytes per hash or read */
	uint16_t depth;	    /* requests in flight */
	bool all_ranges;    /* go on past the first difference (-v) */
	bool whole_log;	    /* compare with the whole log, not a range */
	uint64_t offset;    /* else: where to start, from the log's start */
	uint64_t length;    /* and how many log bytes */
	uint64_t local_max; /* local bytes to compare at most */
};

struct verify_result {
	enum verify_outcome outcome;
	uint64_t first_difference; /* byte offset from the start of both */
	uint64_t compared;	   /* bytes compared */
	uint64_t local_length;	   /* local bytes read */
	uint64_t remote_length;
	double seconds;
};

/* Compares the input on fd with the remote log. Differing chunk ranges are
 * printed with rs_verbose() as they are found when all_ranges is set.
 * Returns an exit code: RS_EXIT_OK when the comparison ran (see outcome),
 * otherwise the trouble (already reported). */
int verify_run(const struct verify_config *cfg, int fd, const char *name,
	       struct verify_result *result);

/* The digest of the remote log's range (whole_log, or offset and length):
 * the receiver's XXH3 of every cfg->chunk bytes, folded in order. Sets
 * *length to the bytes it covers. Returns an exit code, reported. */
int verify_digest(const struct verify_config *cfg, uint64_t *length,
		  uint64_t *digest);

#endif
