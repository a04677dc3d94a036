/* The on-media layout of a libpmemlog pool (PMDK 1.12) that we rely on, and
 * the checks that keep a layout surprise from becoming corruption. */
#ifndef RS_POOL_LAYOUT_H
#define RS_POOL_LAYOUT_H

#include <stdint.h>

struct rs_error;

#define RS_POOL_HDR_SIZE 4096u	  /* PMDK pool header */
#define RS_POOL_UUID_OFFSET 40u	  /* pool UUID inside the pool header */
#define RS_LOG_START_OFFSET 4096u /* u64 LE: absolute offset of data start */
#define RS_LOG_END_OFFSET 4104u	  /* u64 LE: absolute offset of data end */
#define RS_LOG_WRITE_OFFSET 4112u /* u64 LE: end of committed data */
#define RS_LOG_HDR_END 4120u
#define RS_POOL_SIGNATURE "PMEMLOG" /* the header's first 8 bytes, NUL last */

/* The UUID as pmempool info prints it: the first three fields are
 * little-endian numbers (so their bytes print reversed), with dashes. */
#define RS_POOL_UUID_TEXT 37
void rs_pool_uuid_text(const uint8_t uuid[16], char out[RS_POOL_UUID_TEXT]);

/* Checks log geometry read from a pool (or received from a peer) against a
 * mapping of map_size bytes. Returns 0 when sound, else RS_E_MALFORMED. */
int rs_log_geometry_check(uint64_t start, uint64_t end, uint64_t write,
			  uint64_t map_size, struct rs_error *err);

/* Checks that [offset, offset + length) lies inside [start, end) without
 * overflow. Returns 0 when it does, else RS_E_MALFORMED. */
int rs_log_range_check(uint64_t offset, uint64_t length, uint64_t start,
		       uint64_t end, struct rs_error *err);

#endif
