#include "pool/pmem_target.h"

#include "cli/log.h"
#include "error.h"
#include "pool/lock.h"
#include "pool/offset_rule.h"
#include "pool/open.h"
#include "proto/pool_layout.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Opens the pool's descriptor, the one mapped and locked, unless open. */
static int open_pool_fd(struct recv_pmem_target *t, struct rs_error *err)
{
	if (t->fd < 0)
		t->fd = open(t->path, O_RDWR | O_CLOEXEC);
	if (t->fd < 0)
		return rs_error_set(err, RS_E_IO, errno, "cannot open %s: %s",
				    t->path, strerror(errno));
	return 0;
}

static int map_pool(struct recv_pmem_target *t, struct rs_error *err)
{
	struct pmem2_config *cfg = 0;
	int ret = pmem2_source_from_fd(&t->source, t->fd);
	if (!ret)
		ret = pmem2_config_new(&cfg);
	if (!ret)
		ret = pmem2_config_set_required_store_granularity(
		    cfg, PMEM2_GRANULARITY_PAGE);
	if (!ret)
		ret = pmem2_map_new(&t->map, cfg, t->source);
	pmem2_config_delete(&cfg);
	if (ret)
		return rs_error_set(err, RS_E_IO, 0, "cannot map %s: %s",
				    t->path, pmem2_errormsg());
	t->base = pmem2_map_get_address(t->map);
	t->size = pmem2_map_get_size(t->map);
	t->granularity = pmem2_map_get_store_granularity(t->map);
	t->persist = pmem2_get_persist_fn(t->map);
	t->memcpy_persist = pmem2_get_memcpy_fn(t->map);
	return 0;
}

/* An existing pool's word, before libpmemlog reads it: one a writer left
 * broken (it flushed it itself, then the host went down before the
 * receiver put it back) is put back to the floor. Only on a header whose
 * signature and geometry are sound; anything else is libpmemlog's to
 * refuse. True when the pool has a floor of this epoch: a receiver of this
 * release served it, and checked it with libpmemlog then. */
static bool repair_word(struct recv_pmem_target *t)
{
	const uint8_t *b = t->base;
	uint64_t start = load_le64(b + RS_LOG_START_OFFSET);
	uint64_t end = load_le64(b + RS_LOG_END_OFFSET);
	uint64_t word = recv_offset_load(b + RS_LOG_WRITE_OFFSET), floor = 0;
	if (t->size < RS_LOG_HDR_END ||
	    memcmp(b, RS_POOL_SIGNATURE, sizeof(RS_POOL_SIGNATURE)) ||
	    rs_log_geometry_check(start, end, start, t->size, 0) ||
	    !recv_offset_floor_fits(start))
		return false;
	const uint8_t *uuid = b + RS_POOL_UUID_OFFSET;
	bool has_floor = recv_offset_floor_decode(
	    b + RECV_OFFSET_FLOOR_AT, uuid,
	    recv_offset_floor_epoch(b, start, uuid), &floor);
	enum recv_offset_rule broke;
	uint64_t good =
	    recv_offset_at_open(word, start, end, has_floor, floor, &broke);
	if (good == word)
		return has_floor;
	rs_err("%s: its write offset %llu is %s (a writer stored it, then the "
	       "receiver stopped); putting back %llu, the last one checked",
	       t->path, (unsigned long long)word, recv_offset_rule_text(broke),
	       (unsigned long long)good);
	t->start = start;
	recv_pmem_target_commit(t, good);
	return has_floor;
}

/* Our direct view must agree with libpmemlog's (view; NULL: libpmemlog
 * did not look, our reading stands alone), or we would corrupt the pool:
 * refuse instead. */
static int check_layout(struct recv_pmem_target *t,
			const struct recv_pool_view *view, struct rs_error *err)
{
	t->start = load_le64(t->base + RS_LOG_START_OFFSET);
	t->end = load_le64(t->base + RS_LOG_END_OFFSET);
	uint64_t write = load_le64(t->base + RS_LOG_WRITE_OFFSET);
	memcpy(t->uuid, t->base + RS_POOL_UUID_OFFSET, sizeof(t->uuid));
	struct rs_error geometry = {0};
	const char *why = 0;
	if (rs_log_geometry_check(t->start, t->end, write, t->size, &geometry))
		why = geometry.msg;
	if (!why && view &&
	    (view->tell < 0 || write != t->start + (uint64_t)view->tell))
		why = "write offset disagrees with pmemlog_tell()";
	if (!why && view && t->end - t->start != view->nbyte)
		why = "log size disagrees with pmemlog_nbyte()";
	if (why)
		return rs_error_set(err, RS_E_IO, 0,
				    "%s: unexpected pmemlog layout (%s); "
				    "refusing to write to it",
				    t->path, why);
	/* Whatever a receiver before us left in the CPU's cache is
	 * persistent before anyone is told of it; it is the floor too. */
	t->has_floor = recv_offset_floor_fits(t->start);
	atomic_store(&t->committed, write);
	recv_pmem_target_persist_word(t);
	recv_pmem_target_store_floor(t, write);
	return 0;
}

int recv_pmem_target_open(struct recv_pmem_target *t, const char *path,
			  uint64_t create_size, struct rs_error *err)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (strlen(path) >= sizeof(t->path))
		return rs_error_set(err, RS_E_INVAL, 0, "pool path too long");
	strcpy(t->path, path);

	/* Locked before libpmemlog opens it, so that a second receiver never
	 * gets that far; one it creates is locked once it exists. */
	bool existed = open_pool_fd(t, 0) == 0, known = false;
	struct recv_pool_view view;
	int rc = 0;
	if (existed)
		rc = recv_pool_lock(t->fd, t->path, err);
	/* An existing pool is mapped first: its word is checked before
	 * libpmemlog reads it (a device-DAX has no write(2)). */
	if (!rc && existed && !map_pool(t, 0))
		known = repair_word(t);
	/* libpmemlog's checks (for PMem: the unsafe-shutdown count, through
	 * libndctl) cost 4 ms a pool on a real CPU, most of a restart of a
	 * thousand logs: a page-cache pool this release served before, which
	 * has none of them to make, goes by our own reading. */
	bool skip = known && !recv_pmem_target_byte_addressable(t);
	if (!rc && !skip)
		rc = recv_pool_validate(path, create_size, &view, err);
	if (!rc && !existed)
		rc = open_pool_fd(t, err);
	if (!rc && !existed)
		rc = recv_pool_lock(t->fd, t->path, err);
	if (!rc && !t->map)
		rc = map_pool(t, err);
	if (!rc)
		rc = recv_pool_lock_announce(t->fd, err);
	if (!rc)
		rc = check_layout(t, skip ? 0 : &view, err);
	if (rc)
		recv_pmem_target_close(t);
	return rc;
}

void recv_pmem_target_release_pages(const struct recv_pmem_target *t)
{
	/* DAX is not DRAM; a page-cache pool's pages are the file's: only
	 * the receiver's mapping of them goes (its next touch maps the same
	 * page again, and what RDMA reaches is pinned, not mapped). */
	if (t->base && t->granularity == PMEM2_GRANULARITY_PAGE)
		(void)madvise(t->base, t->size, MADV_DONTNEED);
}

void recv_pmem_target_close(struct recv_pmem_target *t)
{
	if (t->map)
		pmem2_map_delete(&t->map);
	if (t->source)
		pmem2_source_delete(&t->source);
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->base = 0;
}

uint64_t recv_pmem_target_write_offset(const struct recv_pmem_target *t)
{
	return atomic_load((_Atomic uint64_t *)&t->committed);
}

uint64_t recv_pmem_target_offset_word(const struct recv_pmem_target *t)
{
	/* A writer's ATOMIC WRITE may land while we read it. */
	return recv_offset_load(t->base + RS_LOG_WRITE_OFFSET);
}

void recv_pmem_target_persist_word(const struct recv_pmem_target *t)
{
	t->persist(t->base + RS_LOG_WRITE_OFFSET, sizeof(uint64_t));
}

void recv_pmem_target_accept(struct recv_pmem_target *t, uint64_t offset)
{
	atomic_store(&t->committed, offset);
}

void recv_pmem_target_store_floor(const struct recv_pmem_target *t,
				  uint64_t offset)
{
	uint8_t rec[RECV_OFFSET_FLOOR_SLOT];
	if (!t->has_floor)
		return;
	uint64_t epoch = recv_offset_floor_epoch(t->base, t->start, t->uuid);
	struct recv_offset_floor now;
	recv_offset_floor_read(t->base + RECV_OFFSET_FLOOR_AT, t->uuid, epoch,
			       &now);
	unsigned slot =
	    recv_offset_floor_encode(&now, offset, t->uuid, epoch, rec);
	recv_pmem_target_write_header(
	    t, RECV_OFFSET_FLOOR_AT + slot * RECV_OFFSET_FLOOR_SLOT, rec,
	    sizeof(rec));
}

void recv_pmem_target_persist(const struct recv_pmem_target *t, uint64_t offset,
			      uint64_t length)
{
	t->persist(t->base + offset, length);
}

void recv_pmem_target_copy(const struct recv_pmem_target *t, uint64_t dst,
			   const void *src, uint64_t length)
{
	t->memcpy_persist(t->base + dst, src, length, PMEM2_F_MEM_NONTEMPORAL);
}

void recv_pmem_target_commit(struct recv_pmem_target *t, uint64_t offset)
{
	if (offset < recv_pmem_target_write_offset(t)) {
		recv_pmem_target_store_floor(t, offset);
		t->rewinds++;
	}
	/* One aligned 8-byte store cannot tear; little-endian like PMDK. */
	volatile uint64_t *word =
	    (volatile uint64_t *)(void *)(t->base + RS_LOG_WRITE_OFFSET);
	*word = htole64(offset);
	recv_pmem_target_persist_word(t);
	atomic_store(&t->committed, offset);
}

void recv_pmem_target_write_header(const struct recv_pmem_target *t,
				   uint64_t at, const void *src, size_t len)
{
	/* Never into the data range: a sender may write there. */
	if (at + len > t->start)
		return;
	t->memcpy_persist(t->base + at, src, len, 0);
}

bool recv_pmem_target_byte_addressable(const struct recv_pmem_target *t)
{
	return t->granularity != PMEM2_GRANULARITY_PAGE;
}
