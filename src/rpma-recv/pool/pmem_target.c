#include "pool/pmem_target.h"

#include "error.h"
#include "pool/lock.h"
#include "pool/open.h"
#include "proto/pool_layout.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Opens the pool's descriptor, the one mapped and locked, unless open. */
static int open_pool_fd(struct rs_pmem_target *t, struct rs_error *err)
{
	if (t->fd < 0)
		t->fd = open(t->path, O_RDWR | O_CLOEXEC);
	if (t->fd < 0)
		return rs_error_set(err, RS_E_IO, errno, "cannot open %s: %s",
				    t->path, strerror(errno));
	return 0;
}

static int map_pool(struct rs_pmem_target *t, struct rs_error *err)
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

/* Our direct view must agree with libpmemlog's, or we would corrupt the
 * pool: refuse instead. */
static int check_layout(struct rs_pmem_target *t,
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
	if (!why &&
	    (view->tell < 0 || write != t->start + (uint64_t)view->tell))
		why = "write offset disagrees with pmemlog_tell()";
	if (!why && t->end - t->start != view->nbyte)
		why = "log size disagrees with pmemlog_nbyte()";
	if (why)
		return rs_error_set(err, RS_E_IO, 0,
				    "%s: unexpected pmemlog layout (%s); "
				    "refusing to write to it",
				    t->path, why);
	return 0;
}

int rs_pmem_target_open(struct rs_pmem_target *t, const char *path,
			uint64_t create_size, struct rs_error *err)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (strlen(path) >= sizeof(t->path))
		return rs_error_set(err, RS_E_INVAL, 0, "pool path too long");
	strcpy(t->path, path);

	/* Locked before libpmemlog opens it, so that a second receiver never
	 * gets that far; one it creates is locked once it exists. */
	bool existed = open_pool_fd(t, 0) == 0;
	struct recv_pool_view view;
	int rc = 0;
	if (existed)
		rc = recv_pool_lock(t->fd, t->path, err);
	if (!rc)
		rc = recv_pool_validate(path, create_size, &view, err);
	if (!rc && !existed)
		rc = open_pool_fd(t, err);
	if (!rc && !existed)
		rc = recv_pool_lock(t->fd, t->path, err);
	if (!rc)
		rc = map_pool(t, err);
	if (!rc)
		rc = recv_pool_lock_announce(t->fd, err);
	if (!rc)
		rc = check_layout(t, &view, err);
	if (rc)
		rs_pmem_target_close(t);
	return rc;
}

void rs_pmem_target_close(struct rs_pmem_target *t)
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

uint64_t rs_pmem_target_write_offset(const struct rs_pmem_target *t)
{
	/* One aligned 8-byte load: another thread (the archiver) may read
	 * it while a commit stores it, and must never see half of each. */
	const volatile uint64_t *word =
	    (const volatile uint64_t *)(const void *)(t->base +
						      RS_LOG_WRITE_OFFSET);
	return le64toh(*word);
}

void rs_pmem_target_persist(const struct rs_pmem_target *t, uint64_t offset,
			    uint64_t length)
{
	t->persist(t->base + offset, length);
}

void rs_pmem_target_copy(const struct rs_pmem_target *t, uint64_t dst,
			 const void *src, uint64_t length)
{
	t->memcpy_persist(t->base + dst, src, length, PMEM2_F_MEM_NONTEMPORAL);
}

void rs_pmem_target_commit(const struct rs_pmem_target *t, uint64_t offset)
{
	/* One aligned 8-byte store cannot tear; little-endian like PMDK. */
	volatile uint64_t *word =
	    (volatile uint64_t *)(void *)(t->base + RS_LOG_WRITE_OFFSET);
	*word = htole64(offset);
	t->persist(t->base + RS_LOG_WRITE_OFFSET, sizeof(uint64_t));
}

void rs_pmem_target_write_header(const struct rs_pmem_target *t, uint64_t at,
				 const void *src, size_t len)
{
	/* Never into the data range: a sender may write there. */
	if (at + len > t->start)
		return;
	t->memcpy_persist(t->base + at, src, len, 0);
}

bool rs_pmem_target_byte_addressable(const struct rs_pmem_target *t)
{
	return t->granularity != PMEM2_GRANULARITY_PAGE;
}
