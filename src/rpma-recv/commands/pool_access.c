#include "commands/pool_access.h"

#include "settings/check.h"

#include <errno.h>
#include <libgen.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Who the answer is for: the service may run as a user of its own. */
static const char *user_name(char *buf, size_t len)
{
	uid_t uid = getuid();
	const struct passwd *pw = getpwuid(uid);
	if (pw)
		snprintf(buf, len, "user %s", pw->pw_name);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
	return buf;
}

static const char *reason(int errnum)
{
	switch (errnum) {
	case EACCES:
	case EPERM:
		return "permission denied";
	case EROFS:
		return "read-only file system";
	default:
		return strerror(errnum);
	}
}

static const char *place(const struct recv_settings *s,
			 const struct recv_log_settings *log, char *buf,
			 size_t len)
{
	if (log->pool_line)
		snprintf(buf, len, "%s:%u: log %s", s->path, log->pool_line,
			 log->name);
	else
		settings_place(s, log, 0, buf, len);
	return buf;
}

static int check_existing(const char *where, const char *path,
			  const struct stat *st, struct rs_error *err)
{
	char who[64];
	if (S_ISDIR(st->st_mode))
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s: pool %s is a directory: give the path "
				    "of a pool file or a device-dax device",
				    where, path);
	if (access(path, R_OK | W_OK) == 0)
		return 0;
	int e = errno;
	return rs_error_set(err, RS_E_INVAL, e,
			    "%s: pool %s: %s: rpma-recv needs read and write "
			    "access to it (%s)",
			    where, path, reason(e),
			    user_name(who, sizeof(who)));
}

/* pmemlog_create makes the file: the directory must take a new entry. */
static int check_creatable(const char *where, const char *path,
			   struct rs_error *err)
{
	char copy[PATH_MAX], who[64];
	snprintf(copy, sizeof(copy), "%s", path);
	const char *dir = dirname(copy);
	if (access(dir, W_OK | X_OK) == 0)
		return 0;
	int e = errno;
	if (e == ENOENT)
		return rs_error_set(err, RS_E_INVAL, e,
				    "%s: pool %s does not exist, nor does its "
				    "directory %s: create the directory, or "
				    "fix the path",
				    where, path, dir);
	return rs_error_set(err, RS_E_INVAL, e,
			    "%s: pool %s does not exist and cannot be created "
			    "in %s: %s: rpma-recv needs write access to that "
			    "directory (%s)",
			    where, path, dir, reason(e),
			    user_name(who, sizeof(who)));
}

/* The archive takes new files, lists and removes old ones. */
static int check_archive(const char *where, const char *dir,
			 struct rs_error *err)
{
	char who[64];
	struct stat st;
	if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		return rs_error_set(err, RS_E_INVAL, ENOTDIR,
				    "%s: archive %s is not a directory: give "
				    "a directory on ordinary storage",
				    where, dir);
	if (access(dir, R_OK | W_OK | X_OK) == 0)
		return 0;
	int e = errno;
	if (e == ENOENT)
		return rs_error_set(err, RS_E_INVAL, e,
				    "%s: archive %s does not exist: create "
				    "the directory, or fix the path",
				    where, dir);
	return rs_error_set(err, RS_E_INVAL, e,
			    "%s: archive %s: %s: rpma-recv needs to read and "
			    "write that directory (%s)",
			    where, dir, reason(e), user_name(who, sizeof(who)));
}

int recv_pool_access_check(const struct recv_settings *s,
			   const struct recv_log_settings *log,
			   struct rs_error *err)
{
	char where[PATH_MAX + 64];
	place(s, log, where, sizeof(where));
	if (log->archive_dir[0] && check_archive(where, log->archive_dir, err))
		return err ? err->code : RS_E_INVAL;
	struct stat st;
	if (stat(log->pool_path, &st) == 0)
		return check_existing(where, log->pool_path, &st, err);
	if (errno == ENOENT && log->create_size)
		return check_creatable(where, log->pool_path, err);
	return 0;
}
