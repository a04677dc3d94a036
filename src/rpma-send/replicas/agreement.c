#include "replicas/agreement.h"

#include "cli/log.h"
#include "error.h"
#include "verify/verifier.h"

#include <stdbool.h>

#define AGREEMENT_CHUNK (1u << 20)

/* The digest of what replica r's log holds, over a verify session of its
 * own (the stream's session stays as it is). */
static int digest_of(const struct replica *r, const struct ship_config *cfg,
		     uint64_t used, uint64_t *digest)
{
	struct verify_config vc = {
	    .remote = *replica_target(r),
	    .timeout_ms = cfg->connect_timeout_ms,
	    .auth_key = cfg->auth_key,
	    .method = VERIFY_HASH,
	    .chunk = AGREEMENT_CHUNK,
	    .depth = VERIFY_DEPTH_DEFAULT,
	    .offset = 0,
	    .length = used,
	};
	uint64_t covered = 0;
	int rc = verify_digest(&vc, &covered, digest);
	if (!rc && covered != used) {
		rs_err("the log on %s changed while it was being checked",
		       replica_label(r));
		rc = RS_E_DIVERGED;
	}
	return rc;
}

static void report(struct replica *const *replicas, unsigned n,
		   const uint64_t *digests)
{
	for (unsigned i = 0; i < n; i++) {
		const struct replica *r = replicas[i];
		uint64_t used = replica_granted_end(r);
		if (digests)
			rs_err("%s holds %llu bytes (hash %016llx)",
			       replica_label(r), (unsigned long long)used,
			       (unsigned long long)digests[i]);
		else
			rs_err("%s holds %llu bytes", replica_label(r),
			       (unsigned long long)used);
	}
	rs_err("the replicas do not hold the same log: start them all over "
	       "with --truncate, or ship to each on its own");
}

int agreement_check(struct replica *const *replicas, unsigned n,
		    const struct ship_config *cfg)
{
	uint64_t used = replica_granted_end(replicas[0]);
	for (unsigned i = 1; i < n; i++)
		if (replica_granted_end(replicas[i]) != used) {
			report(replicas, n, 0);
			return RS_E_DIVERGED;
		}
	if (n < 2 || used == 0)
		return 0;
	uint64_t digests[SEND_REPLICAS_MAX];
	bool same = true;
	for (unsigned i = 0; i < n; i++) {
		int rc = digest_of(replicas[i], cfg, used, &digests[i]);
		if (rc)
			return rc;
		same = same && digests[i] == digests[0];
	}
	if (!same) {
		report(replicas, n, digests);
		return RS_E_DIVERGED;
	}
	rs_verbose("the %u replicas hold the same %llu bytes", n,
		   (unsigned long long)used);
	return 0;
}
