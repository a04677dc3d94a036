#include "commands/export.h"

#include "cli/log.h"
#include "error.h"
#include "pool/peek.h"
#include "rotation/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct out {
	int fd;
	const char *name;
};

static int put(void *ctx, const uint8_t *p, uint64_t len, struct rs_error *err)
{
	struct out *o = ctx;
	while (len) {
		ssize_t n = write(o->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return rs_error_set(err, RS_E_IO, errno,
					    "cannot write %s: %s", o->name,
					    strerror(n < 0 ? errno : EIO));
		p += n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* One archive file from offset on. */
static int put_file(struct out *o, const char *path, uint64_t off, uint64_t len,
		    struct rs_error *err)
{
	static uint8_t buf[1u << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rs_error_set(err, RS_E_IO, errno, "cannot read %s: %s",
				    path, strerror(errno));
	int rc = 0;
	while (!rc && len) {
		size_t want = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		ssize_t n = pread(fd, buf, want, (off_t)off);
		if (n <= 0)
			rc = rs_error_set(err, RS_E_IO, n < 0 ? errno : EIO,
					  "cannot read %s: %s", path,
					  n < 0 ? strerror(errno)
						: "shorter than listed");
		else
			rc = put(o, buf, (uint64_t)n, err);
		off += (uint64_t)(n > 0 ? n : 0);
		len -= (uint64_t)(n > 0 ? n : 0);
	}
	close(fd);
	return rc;
}

/* The archive's files in order. They end where the pool starts; or past
 * it when a rotation was cut short after its seal, by the pool's committed
 * bytes (in the archive already) or with the pool emptied and its new
 * start not yet recorded: then the archive holds the whole log, *sealed
 * says so, and the receiver finishes the rotation when it next opens the
 * pool (rotation/rotation.c reads the same states). */
static int put_archive(struct out *o, const char *dir, const char *name,
		       const struct recv_pool_peek *p, bool *sealed,
		       struct rs_error *err)
{
	struct archive *a;
	int rc = archive_look(dir, name, &a, err);
	if (rc)
		return rc;
	struct archive_usage u = archive_usage(a);
	uint64_t used = p->write - p->start;
	*sealed = u.files && u.end > p->base &&
		  (used == 0 || u.end == p->base + used);
	if (u.files && u.end != p->base && !*sealed)
		rc = rs_error_set(err, RS_E_MALFORMED, 0,
				  "archive %s ends at log position %" PRIu64
				  " but the pool starts at %" PRIu64
				  ": it is not this log's (or bytes are "
				  "missing); give the log's own archive",
				  dir, u.end, p->base);
	for (uint64_t pos = u.start; !rc && pos < u.end;) {
		char path[PATH_MAX];
		uint64_t off, left;
		rc = archive_locate(a, pos, path, &off, &left, err);
		if (!rc)
			rc = put_file(o, path, off, left, err);
		pos += left;
	}
	archive_close(&a);
	return rc;
}

static int export_to(struct out *o, const char *pool, const char *dir,
		     const char *name, struct rs_error *err)
{
	struct recv_pool_peek p;
	bool sealed = false;
	int rc = recv_pool_peek(pool, &p, err);
	if (!rc && dir)
		rc = put_archive(o, dir, name, &p, &sealed, err);
	else if (!rc && p.base)
		rs_warn("%s starts at log position %" PRIu64
			": the bytes before it are in its archive (give "
			"--archive DIR to export them too)",
			pool, p.base);
	if (rc || sealed)
		return rc;
	return recv_pool_peek_data(pool, &p, put, o, err);
}

int recv_export(const char *pool, const char *archive_dir, const char *name,
		const char *file)
{
	struct out o = {.fd = STDOUT_FILENO, .name = "standard output"};
	struct rs_error err = {0};
	if (strcmp(file, "-") != 0) {
		o.name = file;
		o.fd =
		    open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	int rc = o.fd < 0 ? rs_error_set(&err, RS_E_IO, errno,
					 "cannot create %s: %s", file,
					 strerror(errno))
			  : export_to(&o, pool, archive_dir, name, &err);
	if (o.fd > STDOUT_FILENO && close(o.fd) && !rc)
		rc = rs_error_set(&err, RS_E_IO, errno, "cannot write %s: %s",
				  file, strerror(errno));
	if (rc)
		rs_err("%s", err.msg);
	return rc;
}
