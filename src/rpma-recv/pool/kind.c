#include "pool/kind.h"

#include "cli/size.h"
#include "pool/pmdk_log.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A character device is a device-DAX when sysfs files it under "dax"
 * (bus/dax or class/dax); without sysfs, PMDK is left to judge. */
static bool is_device_dax(const struct stat *st)
{
	char link[64], target[PATH_MAX];
	snprintf(link, sizeof(link), "/sys/dev/char/%u:%u/subsystem",
		 major(st->st_rdev), minor(st->st_rdev));
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return true;
	target[n] = '\0';
	const char *last = strrchr(target, '/');
	return last && !strcmp(last, "/dax");
}

static const char *kind_name(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device that is not a device-DAX";
	if (S_ISBLK(mode))
		return "a block device (mount it with -o dax and give a file "
		       "there)";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* A symbolic link to nothing: PMDK would call the pool missing, and then
 * refuse to create it there ("File exists"). */
static int dangling_link(const char *path, struct rs_error *err)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	return rs_error_set(err, RS_E_IO, ENOENT,
			    "%s is a symbolic link to %s, which does not "
			    "exist: give the pool's own path, or create the "
			    "pool at %s",
			    path, target, target);
}

int recv_pool_kind_check(const char *path, struct rs_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		/* absent or unreadable: the opener says which */
		return errno == ENOENT ? dangling_link(path, err) : 0;
	if (S_ISREG(st.st_mode) && st.st_size >= (off_t)RECV_PMDK_LOG_MIN_POOL)
		return 0;
	if (S_ISCHR(st.st_mode) && is_device_dax(&st))
		return 0;
	if (S_ISREG(st.st_mode)) {
		char size[32];
		return rs_error_set(
		    err, RS_E_IO, 0,
		    "%s holds only %s, too little for a log "
		    "pool (at least 2 MiB): give a pool, or a "
		    "new path with --create SIZE",
		    path,
		    rs_size_format((uint64_t)st.st_size, size, sizeof(size)));
	}
	return rs_error_set(err, RS_E_IO, 0,
			    "%s is %s: give a pool file or a device-DAX "
			    "(/dev/daxN.M)",
			    path, kind_name(st.st_mode));
}
