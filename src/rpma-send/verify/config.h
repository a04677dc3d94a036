/* What a verify is asked to do and what it found: the options of one
 * comparison of a local file with a remote log, and its result. A leaf:
 * the runner (verify/verifier.h), the plan and the pipeline all speak these. */
#ifndef SEND_VERIFY_CONFIG_H
#define SEND_VERIFY_CONFIG_H

#include "cli/endpoint.h"
#include "proto/auth.h"

#include <stdbool.h>
#include <stdint.h>

enum verify_method {
	VERIFY_HASH = 0,
	VERIFY_READ = 1,
};

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

#endif
