/* Memory regions: registration with the fallbacks and the plain-language
 * errors users need (memlock limit, fsdax without ODP), and the descriptor
 * that lets a remote peer address one. */
#ifndef RS_MR_H
#define RS_MR_H

#include "proto/descriptor.h"

#include <stddef.h>
#include <stdint.h>

struct rs_error;
struct rs_mr;
struct rs_peer;

/* What a region may be used for. */
#define RS_MR_LOCAL 0x1u	/* the source or sink of our own work */
#define RS_MR_REMOTE_WRITE 0x2u /* written by the peer */
#define RS_MR_REMOTE_READ 0x4u	/* read by the peer */
#define RS_MR_BIND 0x8u		/* reached through memory windows (mw.h) */
/* made persistent by the peer's RDMA FLUSH (real PMem only; EINVAL on
 * other memory, and on a build without FLUSH) */
#define RS_MR_FLUSH 0x10u

/* Registers [addr, +len). On EOPNOTSUPP retries with on-demand paging when
 * the device supports it for RC. On failure err->sys_errno holds the errno
 * and the text what to do about it. */
int rs_mr_reg(struct rs_peer *peer, void *addr, size_t len, unsigned access,
	      struct rs_mr **mr, struct rs_error *err);
void rs_mr_dereg(struct rs_mr **mr);
/* As rs_mr_dereg, unless the device refuses (a memory window is still
 * bound to the region: its new binding or invalidation has not run yet):
 * then *mr is kept and the errno returned. */
int rs_mr_try_dereg(struct rs_mr **mr);

/* Describes mr for a remote peer. */
struct rs_mr_desc rs_mr_describe(const struct rs_mr *mr, uint8_t usage);

#endif
