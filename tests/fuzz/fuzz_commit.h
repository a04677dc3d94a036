/* The input format of fuzz_commit, shared with the seed generator.
 *   byte 0     the session's method and the staging ring: bits 0-1 pick the
 *              method (FUZZ_COMMIT_NONE, _IN_PLACE, _STAGED, _APM), bit 2
 *              offers no ring at all, bits 3-5 pick the ring's length from
 *              fuzz_commit_ring_len
 *   bytes 1-4  u32 LE: the write offset the pool starts the input at, as
 *              start + value % (end - start + 1)
 *   then       up to FUZZ_COMMIT_MAX_MSGS messages of RS_MSG_SIZE bytes in
 *              wire format, each decoded as the receiver does and, if well
 *              formed, applied to the pool */
#ifndef RS_FUZZ_COMMIT_H
#define RS_FUZZ_COMMIT_H

#include <stdint.h>

#define FUZZ_COMMIT_POOL_SIZE (2u << 20) /* PMEMLOG_MIN_POOL */
#define FUZZ_COMMIT_LOG_START 8192u	 /* what libpmemlog lays out */
#define FUZZ_COMMIT_MAX_MSGS 32
#define FUZZ_COMMIT_METHOD_MASK 0x3u
#define FUZZ_COMMIT_NONE 0x0u	  /* a session that commits nothing */
#define FUZZ_COMMIT_IN_PLACE 0x1u /* GPSPM */
#define FUZZ_COMMIT_STAGED 0x2u
#define FUZZ_COMMIT_APM 0x3u /* its sender commits alone: no request */
#define FUZZ_COMMIT_NO_RING 0x4u
#define FUZZ_COMMIT_RING_SHIFT 3
#define FUZZ_COMMIT_HDR_SIZE 5

static const uint64_t fuzz_commit_ring_len[8] = {
    0, 1, 7, 64, 4096, 4104, 65536, 65537,
};

#endif
