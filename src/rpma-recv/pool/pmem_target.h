/* The receiver's target: a libpmemlog pool, created or validated with
 * libpmemlog, then mapped with libpmem2 so its data range can be registered
 * for RDMA and persisted with the right primitive (CPU flush on DAX, msync on
 * the page cache). Owns the commit rule: data persistent first, then the
 * 8-byte write offset, itself made persistent. */
#ifndef RECV_PMEM_TARGET_H
#define RECV_PMEM_TARGET_H

#include "error.h"

#include <libpmem2.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct recv_pmem_target {
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
	/* The committed end as the receiver knows it: its own commits, and
	 * what a one-sided writer stored once checked (pool/offset_word.h).
	 * Never the raw word; other threads (the archiver, the reports) read
	 * it. */
	_Atomic uint64_t committed;
	/* A rotation seals the log up to the committed end and waits for the
	 * archive: the end may not move until it is over, and a one-sided
	 * writer's word that moves it breaks a rule (pool/offset_word.h).
	 * Set and cleared by rotation/rotation.c on the log's thread. */
	bool end_sealed;
	/* How many times the committed end went back (the pool started over,
	 * a replacement switched in, the log emptied): what a reader was
	 * given of the pool before then holds other bytes now. Log thread. */
	uint64_t rewinds;
	bool has_floor; /* room below the data range for the floor record */
};

/* Opens POOL, creating it first with create_size bytes when it does not
 * exist and create_size is non-zero (a device-dax is taken whole), locked
 * against a second writer (pool/lock.h) and mapped. An existing pool's
 * write offset is checked against its floor first (pool/offset_rule.h),
 * put back to it when a writer left it broken, and made persistent: a
 * receiver that died may have left it in the CPU's cache. Returns 0 or a
 * negative rs_errc with the reason in err (pool/open.h says which). */
int recv_pmem_target_open(struct recv_pmem_target *t, const char *path,
			  uint64_t create_size, struct rs_error *err);
void recv_pmem_target_close(struct recv_pmem_target *t);
/* A page-cache pool (not DAX) no longer counts in the receiver's resident
 * memory: its pages stay in the page cache, the file's, and are mapped
 * again as they are touched. For when its last sender left. */
void recv_pmem_target_release_pages(const struct recv_pmem_target *t);

/* The committed end: what the receiver committed or accepted, never the
 * raw word a one-sided writer may be storing (recv_pmem_target_offset_word). */
uint64_t recv_pmem_target_write_offset(const struct recv_pmem_target *t);
/* The word at RS_LOG_WRITE_OFFSET as it is now: input from a one-sided
 * writer, for pool/offset_word.c. */
uint64_t recv_pmem_target_offset_word(const struct recv_pmem_target *t);
/* Makes the word persistent as it is (pool/offset_word.c). */
void recv_pmem_target_persist_word(const struct recv_pmem_target *t);
/* Takes offset, checked and persistent in the word, as the committed end
 * (pool/offset_word.c). */
void recv_pmem_target_accept(struct recv_pmem_target *t, uint64_t offset);
/* Stores the floor record (pool/offset_rule.h), persistent; nothing where
 * the header has no room for it. */
void recv_pmem_target_store_floor(const struct recv_pmem_target *t,
				  uint64_t offset);
/* Makes [offset, +length) of the file persistent. */
void recv_pmem_target_persist(const struct recv_pmem_target *t, uint64_t offset,
			      uint64_t length);
/* Copies length bytes from src to file offset dst with non-temporal stores
 * and makes them persistent. */
void recv_pmem_target_copy(const struct recv_pmem_target *t, uint64_t dst,
			   const void *src, uint64_t length);
/* Stores the new write offset and makes it persistent: the commit point.
 * An offset below the committed end (a rotation, a replacement, an emptied
 * log) lowers the floor first, so that a crash between the two is read as
 * the old content, never as a writer gone backwards. */
void recv_pmem_target_commit(struct recv_pmem_target *t, uint64_t offset);

/* Copies len bytes from src to file offset `at` of the pool's header page
 * (below its data range: the receiver's own record, pool/log_state.h) and makes
 * them persistent. */
void recv_pmem_target_write_header(const struct recv_pmem_target *t,
				   uint64_t at, const void *src, size_t len);

/* True when stores reach persistence without a page-cache sync, which is
 * what the APM method needs. */
bool recv_pmem_target_byte_addressable(const struct recv_pmem_target *t);

#endif
