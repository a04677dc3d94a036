/* Reading a configuration file: lines, sections, and the checks of each
 * log when its section ends. What each key means is config/keys.c's. */
#include "settings/settings.h"

#include "config/keys.h"
#include "config/reader.h"
#include "settings/check.h"
#include "settings/line.h"
#include "settings/logs.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int settings_fail_at(const struct settings_reader *r, unsigned line,
		     const char *fmt, ...)
{
	char what[sizeof(r->err->msg)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return rs_error_set(r->err, RS_E_INVAL, 0, "%s:%u: %s", r->s.path,
			    line ? line : r->line, what);
}

/* The checks that need the whole section, then the log joins the rest. */
static int section_end(struct settings_reader *r)
{
	struct recv_log_settings *log = &r->log;
	unsigned pool_line = settings_key_line(r, "pool");
	if (!pool_line)
		return settings_fail_at(r, log->line,
					"log '%s' has no pool: add `pool = "
					"PATH` to its section",
					log->name);
	log->pool_line = pool_line;
	int rc = settings_check_pool_exists(&r->s, log, pool_line, r->err);
	if (!rc)
		rc = settings_check_methods(&r->s, log, log->line, r->err);
	if (!rc)
		rc = settings_check_room(&r->s, log, log->line, r->err);
	if (!rc)
		rc = settings_check_pool_free(&r->s, log, pool_line, r->err);
	if (!rc)
		rc = settings_logs_append(&r->s, log, r->err);
	explicit_bzero(&log->auth_key, sizeof(log->auth_key));
	r->in_log = false;
	r->nlogs_read += !rc;
	return rc;
}

/* rsyncd.conf's [global]: the settings before the first log's section. */
static int global_section(struct settings_reader *r)
{
	if (r->in_log || r->first_section)
		return settings_fail(r,
				     "[global] comes before the first log's "
				     "section (line %u): move it up",
				     r->first_section);
	return 0;
}

static int section_begin(struct settings_reader *r, const char *name)
{
	if (!strcasecmp(name, "global"))
		return global_section(r);
	int rc = r->in_log ? section_end(r) : 0;
	if (rc)
		return rc;
	struct recv_log_settings *log = &r->log;
	recv_log_settings_init(log);
	if (strlen(name) > RS_LOG_NAME_MAX)
		return settings_fail(r,
				     "log name '%s' is longer than %d "
				     "characters",
				     name, RS_LOG_NAME_MAX);
	strcpy(log->name, name);
	log->line = r->line;
	rc = settings_check_name(&r->s, log, r->line, r->err);
	if (rc)
		return rc;
	settings_keys_forget_log(r);
	r->in_log = true;
	if (!r->first_section)
		r->first_section = r->line;
	return 0;
}

static int line_read(struct settings_reader *r, char *text)
{
	struct settings_line line;
	struct rs_error why = {0};
	const char *start = text + strspn(text, " \t");
	if (*start == '&')
		return settings_fail(r,
				     "'%.*s' is not taken here: write the "
				     "logs in this file (see rpma-recv.conf(5) "
				     "for what differs from rsyncd.conf)",
				     (int)strcspn(start, " \t\n"), start);
	if (settings_line_split(text, &line, &why))
		return settings_fail(r, "%s", why.msg);
	switch (line.kind) {
	case SETTINGS_LINE_SECTION:
		return section_begin(r, line.name);
	case SETTINGS_LINE_PAIR:
		return settings_key_apply(r, line.name, line.value);
	default:
		return 0;
	}
}

/* Lines ending in '\' continue on the next, as in rsyncd.conf; errors name
 * the first of them. */
struct continued {
	char *text;
	size_t len;
	unsigned first_line; /* 0: nothing pending */
};

static int continued_end(struct settings_reader *r, struct continued *c)
{
	if (!c->first_line)
		return 0;
	unsigned last = r->line;
	r->line = c->first_line;
	int rc = line_read(r, c->text);
	r->line = last;
	c->len = 0;
	c->first_line = 0;
	return rc;
}

static int line_take(struct settings_reader *r, struct continued *c, char *text,
		     size_t len)
{
	bool more = len > 0 && text[len - 1] == '\\';
	if (!more && !c->first_line)
		return line_read(r, text);
	len -= more;
	if (c->len + len > SETTINGS_LINE_MAX)
		return settings_fail(r, "continued line longer than %d bytes",
				     SETTINGS_LINE_MAX);
	char *grown = realloc(c->text, c->len + len + 1);
	if (!grown)
		return rs_error_set(r->err, RS_E_NOMEM, 0, "out of memory");
	memcpy(grown + c->len, text, len);
	c->text = grown;
	c->len += len;
	c->text[c->len] = '\0';
	if (!c->first_line)
		c->first_line = r->line;
	return more ? 0 : continued_end(r, c);
}

static int file_read(struct settings_reader *r, FILE *f)
{
	char *text = 0;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	struct continued c = {0};
	errno = 0;
	while (!rc && (n = getline(&text, &cap, f)) >= 0) {
		r->line++;
		size_t len = (size_t)n - (n > 0 && text[n - 1] == '\n');
		if (len > SETTINGS_LINE_MAX)
			rc = settings_fail(r,
					   "line longer than %d bytes: is "
					   "this a configuration file?",
					   SETTINGS_LINE_MAX);
		else if (strlen(text) != (size_t)n)
			rc = settings_fail(r, "a NUL byte: is this a "
					      "configuration file?");
		else
			rc = line_take(r, &c, text, len);
	}
	int read_errno = errno;
	if (!rc)
		rc = continued_end(r, &c); /* a '\' on the last line */
	free(c.text);
	free(text);
	if (!rc && ferror(f))
		rc = rs_error_set(r->err, RS_E_INVAL, read_errno,
				  "%s: cannot read it: %s", r->s.path,
				  strerror(read_errno));
	return rc;
}

/* The end of the file: the last section ends, and there must be a log. */
static int file_end(struct settings_reader *r)
{
	int rc = r->in_log ? section_end(r) : 0;
	if (rc || r->s.nlogs)
		return rc;
	return rs_error_set(r->err, RS_E_INVAL, 0,
			    "%s: no log defined: add a section per log, "
			    "like `[app]` followed by `pool = "
			    "/mnt/pmem/app.pool`",
			    r->s.path);
}

/* Why the file could not be opened, with the fix. */
static int open_failed(const char *path, int e, struct rs_error *err)
{
	if (e == ENOENT || e == ENOTDIR)
		return rs_error_set(
		    err, RS_E_INVAL, e,
		    "%s: cannot read it: %s: give the path of "
		    "the configuration file (rpma-recv.conf(5))",
		    path, strerror(e));
	if (e == EACCES || e == EPERM) {
		const struct passwd *pw = getpwuid(getuid());
		return rs_error_set(err, RS_E_INVAL, e,
				    "%s: cannot read it: permission denied: "
				    "rpma-recv needs read access to it (user "
				    "%s)",
				    path, pw ? pw->pw_name : "this user");
	}
	return rs_error_set(err, RS_E_INVAL, e, "%s: cannot read it: %s", path,
			    strerror(e));
}

/* The file, which must be a regular one: it is read again on each SIGHUP,
 * and a FIFO with no writer would hang the start, or a reload. */
static int file_open(const char *path, FILE **f, struct rs_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return open_failed(path, errno, err);
	struct stat st;
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		return open_failed(path, e, err);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s: it is %s, not a configuration file: "
				    "give the file itself (rpma-recv.conf(5))",
				    path,
				    S_ISDIR(st.st_mode)	   ? "a directory"
				    : S_ISFIFO(st.st_mode) ? "a FIFO"
				    : S_ISCHR(st.st_mode)
					? "a character device"
					: "not a regular file");
	}
	*f = fdopen(fd, "r");
	if (*f)
		return 0;
	close(fd);
	return rs_error_set(err, RS_E_NOMEM, errno, "out of memory to read %s",
			    path);
}

static int reader_run(struct settings_reader *r, const char *path,
		      const struct recv_settings *s)
{
	int rc = settings_copy(&r->s, s, r->err);
	if (rc)
		return rc;
	strcpy(r->s.path, path);
	FILE *f = 0;
	rc = file_open(path, &f, r->err);
	if (rc)
		return rc;
	rc = file_read(r, f);
	fclose(f);
	return rc ? rc : file_end(r);
}

int recv_settings_load(const char *path, struct recv_settings *s,
		       struct rs_error *err)
{
	if (strlen(path) >= sizeof(s->path))
		return rs_error_set(err, RS_E_INVAL, 0,
				    "configuration file name longer than %d "
				    "bytes",
				    PATH_MAX - 1);
	struct settings_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return rs_error_set(err, RS_E_NOMEM, 0,
				    "out of memory to read %s", path);
	r->err = err;
	int rc = reader_run(r, path, s);
	if (!rc) {
		recv_settings_free(s);
		*s = r->s;
	} else {
		recv_settings_free(&r->s);
	}
	explicit_bzero(r, sizeof(*r));
	free(r);
	return rc;
}
