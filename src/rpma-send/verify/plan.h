/* How a verify compares, decided once from what the receiver offers: by
 * hash or by reading back, the chunk size, how many requests in flight and
 * which range of the log. Pure: the offer is taken from the grant by the
 * RDMA link (verify/rdma.h), so the rules are tested without a receiver. */
#ifndef SEND_VERIFY_PLAN_H
#define SEND_VERIFY_PLAN_H

#include "verify/config.h"

#include <stdbool.h>
#include <stdint.h>

struct rs_error;

/* What the receiver granted a verifying sender. */
struct verify_offer {
	uint16_t credits;   /* requests it serves at once */
	bool pool_readable; /* the log itself may be read back */
	bool ring_readable; /* else its ring, a slot at a time */
	uint32_t ring_slot; /* bytes per ring slot */
	/* Log positions (the archive's bytes, then the pool's): where the
	 * log starts, where its pool starts (before it, only the ring
	 * reads), where its committed bytes end. */
	uint64_t start;
	uint64_t pool_start;
	uint64_t committed_end;
};

struct verify_plan {
	bool by_hash;  /* compare hashes; else read every chunk back */
	bool can_read; /* a first difference may be read back */
	uint32_t chunk;
	uint16_t depth;	     /* requests in flight */
	uint64_t log_offset; /* where the compared range starts, a position */
	uint64_t remote_len; /* committed log bytes in the range */
};

/* Fills *plan. RS_E_INVAL when --verify=read finds nothing to read. */
int verify_plan_make(const struct verify_config *cfg,
		     const struct verify_offer *offer, struct verify_plan *plan,
		     struct rs_error *err);

#endif
