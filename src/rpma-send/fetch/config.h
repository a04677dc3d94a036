/* What rpma-send --fetch is asked to do and what it did: a leaf, for the
 * fetcher and its RDMA link. */
#ifndef SEND_FETCH_CONFIG_H
#define SEND_FETCH_CONFIG_H

#include "cli/endpoint.h"
#include "fetch/plan.h"
#include "proto/auth.h"

#include <stdbool.h>
#include <stdint.h>

struct fetch_config {
	struct rs_target remote;
	int timeout_ms;
	const struct rs_auth_key *auth_key; /* --auth-key, or NULL */
	unsigned retries;		    /* --retry */
	bool follow;			    /* --follow: read as it grows */
	struct fetch_start start;	    /* --from, --resume */
	bool progress, progress_forced;	    /* --progress[=always] */
};

struct fetch_result {
	uint64_t fetched; /* bytes written out */
	uint64_t at;	  /* the log position after the last one */
	double seconds;
};

#endif
