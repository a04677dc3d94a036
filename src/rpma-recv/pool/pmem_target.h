/* The receiver's target: a libpmemlog pool, created or validated with
 * libpmemlog, then mapped with libpmem2 so its data range can be registered
 * for RDMA and persisted with the right primitive (CPU flush on DAX, msync on
 * the page cache). Owns the commit rule: data persistent first, then the
 * 8-byte write offset, itself made persistent. */
#ifndef RS_PMEM_TARGET_H
#define RS_PMEM_TARGET_H

#include "error.h"

#include <libpmem2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_pmem_target {
	char path[4096];
	int fd;
	struct pmem2_source *source;
	struct pmem2_map *map;
	uint8_t *base; /* the whole pool file, mapped */
	size_t size;
	uint64_t start; /* absolute offsets of the log data */
	uint64_t end;
	uint8_t uuid[16];
	enum pmem2_granularity granularity;
	pmem2_persist_fn persist;
	pmem2_memcpy_fn memcpy_persist;
};

/* Opens POOL, creating it first with create_size bytes when it does not
 * exist and create_size is non-zero (a device-dax is taken whole), locked
 * against a second writer (pool/lock.h) and mapped. Returns 0 or a
 * negative rs_errc with the reason in err (pool/open.h says which). */
int rs_pmem_target_open(struct rs_pmem_target *t, const char *path,
			uint64_t create_size, struct rs_error *err);
void rs_pmem_target_close(struct rs_pmem_target *t);

uint64_t rs_pmem_target_write_offset(const struct rs_pmem_target *t);
/* Makes [offset, +length) of the file persistent. */
void rs_pmem_target_persist(const struct rs_pmem_target *t, uint64_t offset,
			    uint64_t length);
/* Copies length bytes from src to file offset dst with non-temporal stores
 * and makes them persistent. */
void rs_pmem_target_copy(const struct rs_pmem_target *t, uint64_t dst,
			 const void *src, uint64_t length);
/* Stores the new write offset and makes it persistent: the commit point. */
void rs_pmem_target_commit(const struct rs_pmem_target *t, uint64_t offset);

/* Copies len bytes from src to file offset `at` of the pool's header page
 * (below its data range: the receiver's own record, pool/log_state.h) and makes
 * them persistent. */
void rs_pmem_target_write_header(const struct rs_pmem_target *t, uint64_t at,
				 const void *src, size_t len);

/* True when stores reach persistence without a page-cache sync, which is
 * what the APM method needs. */
bool rs_pmem_target_byte_addressable(const struct rs_pmem_target *t);

#endif
