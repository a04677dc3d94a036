#include "pmem_target.h"

#include "error.h"
#include "proto/pool_layout.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libpmemlog.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool is_char_device(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

/* Opens (or creates) the pool with libpmemlog and returns its committed
 * length, proving it is a well-formed log before we touch it directly. */
static int pool_validate(const char *path, uint64_t create_size,
			 long long *tell, size_t *nbyte, char *err,
			 size_t errlen)
{
	PMEMlogpool *plp = pmemlog_open(path);
	if (!plp && errno == ENOENT && create_size) {
		plp = pmemlog_create(path, (size_t)create_size, 0600);
		if (!plp) {
			snprintf(err, errlen, "cannot create pool %s: %s", path,
				 pmemlog_errormsg());
			return -1;
		}
	} else if (!plp && create_size && is_char_device(path)) {
		/* A device-dax has no file size to pass: 0 takes it whole. */
		plp = pmemlog_create(path, 0, 0);
		if (!plp) {
			snprintf(err, errlen, "cannot create pool on %s: %s",
				 path, pmemlog_errormsg());
			return -1;
		}
	} else if (!plp && errno == ENOENT) {
		snprintf(err, errlen,
			 "pool %s does not exist; create it with --create SIZE",
			 path);
		return -1;
	} else if (!plp && create_size) {
		snprintf(err, errlen,
			 "%s exists and is not a usable pmemlog pool (%s); "
			 "refusing to overwrite it: remove it or give another "
			 "path",
			 path, pmemlog_errormsg());
		return -1;
	} else if (!plp) {
		snprintf(err, errlen,
			 "%s is not a usable pmemlog pool (%s); create one "
			 "with --create SIZE or `pmempool create log`",
			 path, pmemlog_errormsg());
		return -1;
	}
	*tell = pmemlog_tell(plp);
	*nbyte = pmemlog_nbyte(plp);
	pmemlog_close(plp);
	return 0;
}

static int map_pool(struct rs_pmem_target *t, char *err, size_t errlen)
{
	struct pmem2_config *cfg = 0;
	t->fd = open(t->path, O_RDWR);
	if (t->fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", t->path,
			 strerror(errno));
		return -1;
	}
	int ret = pmem2_source_from_fd(&t->source, t->fd);
	if (!ret)
		ret = pmem2_config_new(&cfg);
	if (!ret)
		ret = pmem2_config_set_required_store_granularity(
		    cfg, PMEM2_GRANULARITY_PAGE);
	if (!ret)
		ret = pmem2_map_new(&t->map, cfg, t->source);
	pmem2_config_delete(&cfg);
	if (ret) {
		snprintf(err, errlen, "cannot map %s: %s", t->path,
			 pmem2_errormsg());
		return -1;
	}
	t->base = pmem2_map_get_address(t->map);
	t->size = pmem2_map_get_size(t->map);
	t->granularity = pmem2_map_get_store_granularity(t->map);
	t->persist = pmem2_get_persist_fn(t->map);
	t->memcpy_persist = pmem2_get_memcpy_fn(t->map);
	return 0;
}

int rs_pmem_target_open(struct rs_pmem_target *t, const char *path,
			uint64_t create_size, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (strlen(path) >= sizeof(t->path)) {
		snprintf(err, errlen, "pool path too long");
		return -1;
	}
	strcpy(t->path, path);

	long long tell;
	size_t nbyte;
	if (pool_validate(path, create_size, &tell, &nbyte, err, errlen))
		return -1;
	if (map_pool(t, err, errlen)) {
		rs_pmem_target_close(t);
		return -1;
	}

	t->start = load_le64(t->base + RS_LOG_START_OFFSET);
	t->end = load_le64(t->base + RS_LOG_END_OFFSET);
	uint64_t write = load_le64(t->base + RS_LOG_WRITE_OFFSET);
	memcpy(t->uuid, t->base + RS_POOL_UUID_OFFSET, sizeof(t->uuid));

	/* Our direct view must agree with libpmemlog's, or we would corrupt
	 * the pool: refuse instead. */
	struct rs_error geometry = {0};
	const char *why = 0;
	if (rs_log_geometry_check(t->start, t->end, write, t->size, &geometry))
		why = geometry.msg;
	if (!why && (tell < 0 || write != t->start + (uint64_t)tell))
		why = "write offset disagrees with pmemlog_tell()";
	if (!why && t->end - t->start != nbyte)
		why = "log size disagrees with pmemlog_nbyte()";
	if (why) {
		snprintf(err, errlen,
			 "%s: unexpected pmemlog layout (%s); refusing to "
			 "write to it",
			 path, why);
		rs_pmem_target_close(t);
		return -1;
	}
	return 0;
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
	return load_le64(t->base + RS_LOG_WRITE_OFFSET);
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

bool rs_pmem_target_byte_addressable(const struct rs_pmem_target *t)
{
	return t->granularity != PMEM2_GRANULARITY_PAGE;
}
