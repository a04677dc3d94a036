#include "pool/open.h"

#include "cli/size.h"
#include "pool/kind.h"
#include "pool/peek.h"
#include "pool/pmdk_log.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <libpmem2.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int bad_block_check_needs_root(const char *path, struct rs_error *err)
{
	return rs_error_set(
	    err, RS_E_IO, EACCES,
	    "%s: PMDK's bad-block check of this pool needs root "
	    "(user %s may not read the device's physical address); "
	    "as root, turn it off with `pmempool feature --disable "
	    "CHECK_BAD_BLOCKS %s` (and watch `ndctl list "
	    "--media-errors`), or run rpma-recv as root",
	    path, user_name(), path);
}

/* Why an existing path could not be opened as a pool, and the fix. */
static int explain_open_failure(const char *path, uint64_t create_size,
				int open_errno, struct rs_error *err)
{
	const char *msg = recv_pmdk_log_errormsg();
	if (open_errno == EWOULDBLOCK)
		return rs_error_set(
		    err, RS_E_BUSY, open_errno,
		    "%s is open in another program (it holds "
		    "libpmemlog's lock: pmempool, or another PMDK "
		    "program) for more than %d s; close it and start "
		    "rpma-recv again",
		    path, POOL_BUSY_WAIT_MS / 1000);
	if (open_errno == EACCES || open_errno == EPERM)
		return rs_error_set(
		    err, RS_E_IO, open_errno,
		    "%s: permission denied: rpma-recv needs read and "
		    "write access to it (user %s)",
		    path, user_name());
	if (bad_block_check_denied(msg))
		return bad_block_check_needs_root(path, err);
	if (create_size)
		return rs_error_set(
		    err, RS_E_IO, open_errno,
		    "%s exists and is not a usable pmemlog pool (%s); "
		    "refusing to overwrite it: remove it or give another "
		    "path",
		    path, msg);
	return rs_error_set(err, RS_E_IO, open_errno,
			    "%s is not a usable pmemlog pool (%s): give a "
			    "pool, or create one at a new path with --create "
			    "SIZE or `pmempool create log`",
			    path, msg);
}

/* Creates the pool: a file of create_size bytes, or a whole device-DAX
 * (it has no file size to pass: 0 takes it whole). */
static int too_small(const char *path, uint64_t create_size,
		     struct rs_error *err)
{
	char size[32];
	rs_size_format(create_size, size, sizeof(size));
	return rs_error_set(err, RS_E_INVAL, 0,
			    "cannot create pool %s of %s: a log pool needs at "
			    "least 2 MiB; give --create 2M or more",
			    path, size);
}

static struct recv_pmdk_log *pool_create(const char *path, uint64_t create_size,
					 bool device, struct rs_error *err)
{
	if (!device && create_size < RECV_PMDK_LOG_MIN_POOL) {
		too_small(path, create_size, err);
		return 0;
	}
	struct recv_pmdk_log *plp =
	    device ? recv_pmdk_log_create(path, 0, 0)
		   : recv_pmdk_log_create(path, (size_t)create_size, 0600);
	if (plp)
		return plp;
	const char *msg = recv_pmdk_log_errormsg();
	if (device && bad_block_check_denied(msg))
		rs_error_set(
		    err, RS_E_IO, errno,
		    "cannot create a pool on %s as user %s: PMDK's "
		    "bad-block check of a device-DAX needs root; as root, "
		    "run `pmempool create log %s` and `pmempool feature "
		    "--disable CHECK_BAD_BLOCKS %s`",
		    path, user_name(), path, path);
	else
		rs_error_set(err, RS_E_IO, errno, "cannot create pool %s%s: %s",
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
static struct recv_pmdk_log *pool_open_waiting(const char *path,
					       int *open_errno)
{
	for (int waited = 0;; waited += 100) {
		struct recv_pmdk_log *plp = recv_pmdk_log_open(path);
		*open_errno = errno;
		if (plp || *open_errno != EWOULDBLOCK ||
		    waited >= POOL_BUSY_WAIT_MS)
			return plp;
		usleep(100 * 1000);
	}
}

/* A pool file to be created: of a pool's size at least, in a directory
 * that takes a new entry. */
static int precheck_creatable(const char *path, uint64_t create_size,
			      struct rs_error *err)
{
	if (create_size < RECV_PMDK_LOG_MIN_POOL)
		return too_small(path, create_size, err);
	char copy[PATH_MAX];
	snprintf(copy, sizeof(copy), "%s", path);
	const char *dir = dirname(copy);
	if (access(dir, W_OK | X_OK) == 0)
		return 0;
	int e = errno;
	if (e == ENOENT || e == ENOTDIR)
		return rs_error_set(
		    err, RS_E_IO, e,
		    "cannot create pool %s: its directory %s "
		    "does not exist: create it, or fix the path",
		    path, dir);
	return rs_error_set(err, RS_E_IO, e,
			    "cannot create pool %s in %s: %s: rpma-recv needs "
			    "write access to that directory (user %s)",
			    path, dir,
			    e == EROFS ? "read-only file system"
				       : "permission denied",
			    user_name());
}

/* An existing pool: read and write access, and a pool header. */
static int precheck_existing(const char *path, uint64_t create_size,
			     const struct stat *st, struct rs_error *err)
{
	if (access(path, R_OK | W_OK) != 0 && errno == EROFS)
		return rs_error_set(err, RS_E_IO, EROFS,
				    "%s is on a read-only file system: "
				    "rpma-recv writes to its pools; remount it "
				    "read-write, or give a pool elsewhere",
				    path);
	if (access(path, R_OK | W_OK) != 0)
		return explain_open_failure(path, create_size, errno, err);
	/* A blank device-DAX is what `create` is for: nothing to read. */
	if (S_ISCHR(st->st_mode) && create_size && device_is_blank(path))
		return 0;
	struct recv_pool_peek peek;
	int rc = recv_pool_peek_head(path, &peek, err);
	if (rc == RS_E_MALFORMED && create_size)
		return rs_error_set(
		    err, RS_E_IO, 0,
		    "%s exists and is not a usable pmemlog pool; "
		    "refusing to overwrite it: remove it or give "
		    "another path",
		    path);
	if (rc)
		return RS_E_IO;
	/* PMDK reads a device-DAX's bad blocks through ndctl, as root only:
	 * said now rather than when the pool opens, after the start. */
	if (S_ISCHR(st->st_mode) && peek.checks_bad_blocks && geteuid() != 0)
		return bad_block_check_needs_root(path, err);
	return 0;
}

int recv_pool_precheck(const char *path, uint64_t create_size,
		       struct rs_error *err)
{
	int rc = recv_pool_kind_check(path, err);
	if (rc)
		return rc;
	struct stat st;
	if (stat(path, &st) == 0)
		return precheck_existing(path, create_size, &st, err);
	int e = errno;
	if (e == ENOENT && create_size)
		return precheck_creatable(path, create_size, err);
	if (e == ENOENT)
		return rs_error_set(
		    err, RS_E_IO, ENOENT,
		    "pool %s does not exist; create it with --create SIZE",
		    path);
	if (e == EACCES)
		return rs_error_set(err, RS_E_IO, e,
				    "cannot reach pool %s: permission denied: "
				    "rpma-recv needs search access to each "
				    "directory above it (user %s)",
				    path, user_name());
	return rs_error_set(err, RS_E_IO, e, "cannot reach pool %s: %s", path,
			    strerror(e));
}

int recv_pool_validate(const char *path, uint64_t create_size,
		       struct recv_pool_view *view, struct rs_error *err)
{
	int rc = recv_pool_kind_check(path, err);
	if (rc)
		return rc;
	int open_errno = 0;
	struct recv_pmdk_log *plp = pool_open_waiting(path, &open_errno);
	bool device = is_char_device(path);
	bool creatable = device ? device_is_blank(path) : open_errno == ENOENT;
	if (!plp && create_size && creatable) {
		plp = pool_create(path, create_size, device, err);
		if (!plp)
			return err ? err->code : RS_E_IO;
	} else if (!plp && open_errno == ENOENT) {
		return rs_error_set(
		    err, RS_E_IO, ENOENT,
		    "pool %s does not exist; create it with --create SIZE",
		    path);
	} else if (!plp) {
		return explain_open_failure(path, create_size, open_errno, err);
	}
	view->tell = recv_pmdk_log_tell(plp);
	view->nbyte = recv_pmdk_log_nbyte(plp);
	recv_pmdk_log_close(plp);
	return 0;
}
