/* Memory regions: registration with the fallbacks and the plain-language
 * errors users need (memlock limit, fsdax without ODP). */
#ifndef RS_MR_H
#define RS_MR_H

#include "descriptor.h"
#include "peer.h"

#include <stddef.h>

/* Registers [addr, +len). On EOPNOTSUPP retries with on-demand paging when
 * the device supports it for RC. Returns 0, or an errno value. */
int rs_mr_reg(struct rs_peer *peer, void *addr, size_t len, int access,
	      struct ibv_mr **mr);
void rs_mr_dereg(struct ibv_mr **mr);

/* What to do about a registration error, as a short sentence. */
const char *rs_mr_reg_advice(int err);

/* Describes mr for a remote peer. */
struct rs_mr_desc rs_mr_describe(const struct ibv_mr *mr, uint8_t usage);

#endif
