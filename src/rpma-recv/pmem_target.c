#include "pmem_target.h"

#include "error.h"
#include "pool_lock.h"
#include "proto/pool_layout.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libpmemlog.h>
#include <pwd.h>
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

/* How long a start waits for another program to let go of the pool. */
#define POOL_BUSY_WAIT_MS 5000

/* The user rpma-recv runs as, for messages about access. */
static const char *user_name(void)
{
	struct passwd *pw = getpwuid(geteuid());
	return pw ? pw->pw_name : "this user";
}

/* PMDK checks a pool for bad blocks when it opens or creates it, and on a
 * device-DAX that reads the device's physical address from sysfs, which
 * only root may: an unprivileged service fails there. */
static bool bad_block_check_denied(const char *pmdk_msg)
{
	return geteuid() != 0 && strstr(pmdk_msg, "for bad blocks failed");
}

/* Why an existing path could not be opened as a pool, and the fix. */
static void explain_open_failure(const char *path, uint64_t create_size,
				 int open_errno, char *err, size_t errlen)
{
	const char *msg = pmemlog_errormsg();
	if (open_errno == EWOULDBLOCK)
		snprintf(err, errlen,
			 "%s is open in another program (it holds "
			 "libpmemlog's lock: pmempool, or another PMDK "
			 "program) for more than %d s; close it and start "
			 "rpma-recv again",
			 path, POOL_BUSY_WAIT_MS / 1000);
	else if (open_errno == EACCES || open_errno == EPERM)
		snprintf(err, errlen,
			 "%s: permission denied: rpma-recv needs read and "
			 "write access to it (user %s)",
			 path, user_name());
	else if (bad_block_check_denied(msg))
		snprintf(
		    err, errlen,
		    "%s: PMDK's bad-block check of this pool needs root "
		    "(user %s may not read the device's physical address); "
		    "as root, turn it off with `pmempool feature --disable "
		    "CHECK_BAD_BLOCKS %s` (and watch `ndctl list "
		    "--media-errors`), or run rpma-recv as root",
		    path, user_name(), path);
	else if (create_size)
		snprintf(err, errlen,
			 "%s exists and is not a usable pmemlog pool (%s); "
			 "refusing to overwrite it: remove it or give another "
			 "path",
			 path, msg);
	else
		snprintf(err, errlen,
			 "%s is not a usable pmemlog pool (%s); create one "
			 "with --create SIZE or `pmempool create log`",
			 path, msg);
}

/* Creates the pool: a file of create_size bytes, or a whole device-DAX
 * (it has no file size to pass: 0 takes it whole). */
static PMEMlogpool *pool_create(const char *path, uint64_t create_size,
				bool device, char *err, size_t errlen)
{
	PMEMlogpool *plp =
	    device ? pmemlog_create(path, 0, 0)
		   : pmemlog_create(path, (size_t)create_size, 0600);
	if (plp)
		return plp;
	const char *msg = pmemlog_errormsg();
	if (device && bad_block_check_denied(msg))
		snprintf(err, errlen,
			 "cannot create a pool on %s as user %s: PMDK's "
			 "bad-block check of a device-DAX needs root; as root, "
			 "run `pmempool create log %s` and `pmempool feature "
			 "--disable CHECK_BAD_BLOCKS %s`",
			 path, user_name(), path, path);
	else
		snprintf(err, errlen, "cannot create pool %s%s: %s",
			 device ? "on " : "", path, msg);
	return 0;
}

/* Whether the mapping starts with a page of zeros. */
static bool first_page_zero(struct pmem2_map *map)
{
	const uint8_t *p = pmem2_map_get_address(map);
	if (pmem2_map_get_size(map) < 4096)
		return false;
	for (size_t i = 0; i < 4096; i++)
		if (p[i])
			return false;
	return true;
}

/* A device-DAX is created whole; only one that holds nothing yet (a
 * zeroed first page, as a new namespace has), so that a pool that failed
 * to open for another reason is never overwritten. A device-DAX cannot be
 * read(2), only mapped: one alignment unit, read-only. */
static bool device_is_blank(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	struct pmem2_source *src = 0;
	struct pmem2_config *cfg = 0;
	struct pmem2_map *map = 0;
	size_t align = 0;
	bool blank = false;
	if (!pmem2_source_from_fd(&src, fd) &&
	    !pmem2_source_alignment(src, &align) && !pmem2_config_new(&cfg) &&
	    !pmem2_config_set_length(cfg, align) &&
	    !pmem2_config_set_protection(cfg, PMEM2_PROT_READ) &&
	    !pmem2_config_set_required_store_granularity(
		cfg, PMEM2_GRANULARITY_PAGE) &&
	    !pmem2_map_new(&map, cfg, src)) {
		blank = first_page_zero(map);
		pmem2_map_delete(&map);
	}
	pmem2_config_delete(&cfg);
	pmem2_source_delete(&src);
	close(fd);
	return blank;
}

/* pmemlog_open, waiting up to POOL_BUSY_WAIT_MS while another program
 * holds libpmemlog's own lock on the pool (pmempool info or dump, at the
 * moment a receiver starts or restarts: that passes). */
static PMEMlogpool *pool_open_waiting(const char *path, int *open_errno)
{
	for (int waited = 0;; waited += 100) {
		PMEMlogpool *plp = pmemlog_open(path);
		*open_errno = errno;
		if (plp || *open_errno != EWOULDBLOCK ||
		    waited >= POOL_BUSY_WAIT_MS)
			return plp;
		usleep(100 * 1000);
	}
}

/* Opens (or creates) the pool with libpmemlog and returns its committed
 * length, proving it is a well-formed log before we touch it directly. */
static int pool_validate(const char *path, uint64_t create_size,
			 long long *tell, size_t *nbyte, char *err,
			 size_t errlen)
{
	int open_errno = 0;
	PMEMlogpool *plp = pool_open_waiting(path, &open_errno);
	bool device = is_char_device(path);
	bool creatable = device ? device_is_blank(path) : open_errno == ENOENT;
	if (!plp && create_size && creatable) {
		plp = pool_create(path, create_size, device, err, errlen);
		if (!plp)
			return -1;
	} else if (!plp && open_errno == ENOENT) {
		snprintf(err, errlen,
			 "pool %s does not exist; create it with --create SIZE",
			 path);
		return -1;
	} else if (!plp) {
		explain_open_failure(path, create_size, open_errno, err,
				     errlen);
		return -1;
	}
	*tell = pmemlog_tell(plp);
	*nbyte = pmemlog_nbyte(plp);
	pmemlog_close(plp);
	return 0;
}

/* Opens the pool's descriptor, the one mapped and locked, unless open. */
static int open_pool_fd(struct rs_pmem_target *t, char *err, size_t errlen)
{
	if (t->fd < 0)
		t->fd = open(t->path, O_RDWR | O_CLOEXEC);
	if (t->fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", t->path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* The one-writer guard (pool_lock.h), on t->fd. */
static int lock_pool(struct rs_pmem_target *t, char *err, size_t errlen)
{
	struct rs_error e = {0};
	if (recv_pool_lock(t->fd, t->path, &e)) {
		snprintf(err, errlen, "%s", e.msg);
		return -1;
	}
	return 0;
}

static int map_pool(struct rs_pmem_target *t, char *err, size_t errlen)
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

	/* Locked before libpmemlog opens it, so that a second receiver never
	 * gets that far; one it creates is locked once it exists. */
	bool existed = open_pool_fd(t, err, errlen) == 0;
	long long tell;
	size_t nbyte;
	struct rs_error announce = {0};
	if ((existed && lock_pool(t, err, errlen)) ||
	    pool_validate(path, create_size, &tell, &nbyte, err, errlen) ||
	    (!existed &&
	     (open_pool_fd(t, err, errlen) || lock_pool(t, err, errlen))) ||
	    map_pool(t, err, errlen)) {
		rs_pmem_target_close(t);
		return -1;
	}
	if (recv_pool_lock_announce(t->fd, &announce)) {
		snprintf(err, errlen, "%s", announce.msg);
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
