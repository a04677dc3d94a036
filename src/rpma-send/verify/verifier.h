/* Verifying a replica, like cmp(1): compares a local file (or stream) with a
 * range of the remote log, either by XXH3 hashes of fixed chunks computed by
 * the receiver (only 8 bytes per chunk cross the wire) or by reading the
 * replica back with RDMA reads. The first differing byte is found by reading
 * back just that chunk where the receiver grants remote read, else by halving
 * the chunk with hashes.
 *
 * This is the runner: it connects a verify session, plans the comparison
 * from the grant (verify/plan.h) and drives the pipeline (verify/pipeline.h)
 * over the RDMA link (verify/rdma.h) with FILE as its source
 * (verify/file.h), and reports what went wrong. */
#ifndef SEND_VERIFIER_H
#define SEND_VERIFIER_H

#include "verify/config.h"

/* Returns 0 and sets *m, or RS_E_INVAL for an unknown name. */
int verify_method_parse(const char *name, enum verify_method *m);

/* Compares the input on fd with the remote log. Differing chunk ranges are
 * printed with rs_verbose() as they are found when all_ranges is set.
 * Returns 0 when the comparison ran (see outcome), otherwise a negative
 * enum rs_errc, reported: send_connect's; RS_E_LOST or RS_E_PROVIDER for
 * the link; RS_E_INVAL for a request the receiver could not serve, or,
 * unreported, for a stop the user asked for; RS_E_IO for FILE;
 * RS_E_NOMEM. */
int verify_run(const struct verify_config *cfg, int fd, const char *name,
	       struct verify_result *result);

/* The digest of the remote log's range (whole_log, or offset and length):
 * the receiver's XXH3 of every cfg->chunk bytes, folded in order. Sets
 * *length to the bytes it covers. Returns verify_run's codes. */
int verify_digest(const struct verify_config *cfg, uint64_t *length,
		  uint64_t *digest);

/* Where the remote log's held bytes start and end, as log positions (its
 * archive pruned before first), from a verify session's grant: nothing is
 * compared. Returns verify_run's codes. */
int verify_log_extent(const struct verify_config *cfg, uint64_t *first,
		      uint64_t *end);

#endif
