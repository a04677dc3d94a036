/* Applying one commit request to the pool, under the commit rule, for the
 * session's persistence method (methods/recv_method.h): the request must be the
 * one its method takes, lie inside the log (and its source where the method
 * has one, the staging ring) and continue the committed log exactly; the
 * method makes the batch persistent (persist in place, or copy from the
 * ring with non-temporal stores), then the new write offset is stored and
 * persisted. Nothing outside the log's data range is ever written. No RDMA
 * here, so it is tested on the host. */
#ifndef RECV_COMMIT_H
#define RECV_COMMIT_H

#include "methods/staging.h"
#include "pool/pmem_target.h"
#include "proto/message.h"

#include <stdbool.h>
#include <stdint.h>

struct recv_generation;
struct recv_method;

/* Fills *reply for req from a session using method m (NULL: a session that
 * commits nothing) and returns true when the pool was committed. */
bool recv_commit_apply(struct recv_pmem_target *target,
		       const struct recv_staging *staging,
		       const struct recv_method *m, const struct rs_msg *req,
		       struct rs_msg *reply);

/* The same into a replacement under way (rotation/generation.h; NULL or
 * inactive: the log itself): the batch must continue the replacement and lie
 * inside the pool, and committing moves the replacement's end, not the log's
 * write offset (the reply's offset is that end). */
bool recv_commit_apply_to(struct recv_pmem_target *target,
			  const struct recv_staging *staging,
			  const struct recv_method *m,
			  struct recv_generation *gen, const struct rs_msg *req,
			  struct rs_msg *reply);

#endif
