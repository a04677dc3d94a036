#include "settings/check.h"

#include "pool/kind.h"
#include "proto/method.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *settings_place(const struct recv_settings *s,
			   const struct recv_log_settings *log, unsigned line,
			   char *buf, size_t len)
{
	if (line)
		snprintf(buf, len, "%s:%u", s->path, line);
	else if (log->name[0])
		snprintf(buf, len, "--log %s=%s", log->name, log->pool_path);
	else
		snprintf(buf, len, "%s", log->pool_path);
	return buf;
}

/* Where another log came from, as seen from a message about line (0: the
 * command line), naming both places without repeating the file. */
static const char *origin(const struct recv_settings *s,
			  const struct recv_log_settings *other, unsigned line,
			  char *buf, size_t len)
{
	if (!other->line)
		return settings_place(s, other, 0, buf, len);
	if (line)
		snprintf(buf, len, "line %u", other->line);
	else
		snprintf(buf, len, "%s:%u", s->path, other->line);
	return buf;
}

/* The log given as a bare POOL (no name) is a sender's default: it cannot
 * be told apart from others, so it serves alone. */
static int check_unnamed(const struct recv_settings *s,
			 const struct recv_log_settings *log, const char *where,
			 struct rs_error *err)
{
	if (!log->name[0] && s->nlogs)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s: a log without a name serves alone; "
				    "name it with --log NAME=POOL",
				    where);
	if (s->nlogs && !s->logs[0].name[0])
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s: the unnamed log %s serves alone; "
				    "name it with --log NAME=POOL",
				    where, s->logs[0].pool_path);
	return 0;
}

int settings_check_name(const struct recv_settings *s,
			const struct recv_log_settings *log, unsigned line,
			struct rs_error *err)
{
	char where[PATH_MAX + 64], other[PATH_MAX + 64];
	settings_place(s, log, line, where, sizeof(where));
	if (log->name[0] && !rs_log_name_valid(log->name))
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s: '%s' is not a log name: use 1 to %d "
				    "letters, digits, '.', '_' or '-', not "
				    "starting with '.' or '-'",
				    where, log->name, RS_LOG_NAME_MAX);
	int rc = check_unnamed(s, log, where, err);
	if (rc)
		return rc;
	const struct recv_log_settings *twin =
	    log->name[0] ? recv_settings_find_log(s, log->name) : 0;
	if (twin)
		return rs_error_set(
		    err, RS_E_INVAL, 0,
		    "%s: log '%s' is already defined (%s): "
		    "rename one of them",
		    where, log->name,
		    origin(s, twin, line, other, sizeof(other)));
	return 0;
}

/* Same path, or the same existing file under another name (a link, a
 * second path to a device). */
static bool same_pool(const char *path, const struct stat *st,
		      const struct recv_log_settings *other)
{
	if (!strcmp(path, other->pool_path))
		return true;
	return st && other->pool_ino && other->pool_dev == st->st_dev &&
	       other->pool_ino == st->st_ino;
}

int settings_check_methods(const struct recv_settings *s,
			   const struct recv_log_settings *log, unsigned line,
			   struct rs_error *err)
{
	char where[PATH_MAX + 64];
	if (!log->append_only ||
	    (log->methods & RS_METHOD_BIT(RS_METHOD_STAGED)))
		return 0;
	return rs_error_set(err, RS_E_INVAL, 0,
			    "%s: an append-only log needs the staged method "
			    "(all it has where the device binds no memory "
			    "windows): add staged to its methods or remove "
			    "append-only",
			    settings_place(s, log, line, where, sizeof(where)));
}

int settings_check_room(const struct recv_settings *s,
			const struct recv_log_settings *log, unsigned line,
			struct rs_error *err)
{
	char where[PATH_MAX + 64];
	if (s->nlogs < RECV_LOGS_MAX)
		return 0;
	return rs_error_set(err, RS_E_INVAL, 0,
			    "%s: more than %d logs: serve the others with a "
			    "second rpma-recv on another port",
			    settings_place(s, log, line, where, sizeof(where)),
			    RECV_LOGS_MAX);
}

int settings_check_pool_free(const struct recv_settings *s,
			     const struct recv_log_settings *log, unsigned line,
			     struct rs_error *err)
{
	char where[PATH_MAX + 64], other[PATH_MAX + 64];
	struct stat st;
	bool exists = stat(log->pool_path, &st) == 0;
	for (unsigned i = 0; i < s->nlogs; i++) {
		const struct recv_log_settings *o = &s->logs[i];
		if (!same_pool(log->pool_path, exists ? &st : 0, o))
			continue;
		settings_place(s, log, line, where, sizeof(where));
		origin(s, o, line, other, sizeof(other));
		if (!strcmp(log->pool_path, o->pool_path))
			return rs_error_set(err, RS_E_INVAL, 0,
					    "%s: log '%s' uses the pool of log "
					    "'%s' (%s), %s: give each log its "
					    "own pool",
					    where, log->name, o->name, other,
					    o->pool_path);
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s: log '%s' uses the pool of log '%s' "
				    "(%s): %s is the same file as %s; give "
				    "each log its own pool",
				    where, log->name, o->name, other,
				    log->pool_path, o->pool_path);
	}
	return 0;
}

int settings_check_pool_exists(const struct recv_settings *s,
			       const struct recv_log_settings *log,
			       unsigned line, struct rs_error *err)
{
	char where[PATH_MAX + 64];
	settings_place(s, log, line, where, sizeof(where));
	const char *path = log->pool_path;
	struct stat st;
	if (stat(path, &st) == 0 || (errno == ENOENT && log->create_size))
		return 0;
	/* A link to nothing is named as such (pool/kind.h), not as a pool
	 * to create where creating it would fail. */
	if (errno == ENOENT && recv_pool_kind_check(path, err))
		return rs_error_wrap(err, "%s", where);
	/* The fix is said the way the log was given: a key or an option. */
	if (errno == ENOENT)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s: pool %s does not exist: create it "
				    "with `pmempool create log %s` or %s",
				    where, path, path,
				    line ? "add `create = SIZE`"
					 : "give --create SIZE");
	int e = errno;
	if (e == EACCES) {
		const struct passwd *pw = getpwuid(getuid());
		return rs_error_set(err, RS_E_INVAL, e,
				    "%s: cannot reach pool %s: permission "
				    "denied: rpma-recv needs search access to "
				    "each directory above it (user %s)",
				    where, path,
				    pw ? pw->pw_name : "this user");
	}
	return rs_error_set(err, RS_E_INVAL, e, "%s: cannot reach pool %s: %s",
			    where, path, strerror(e));
}
