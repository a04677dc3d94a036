#include "rotation/archive.h"

#include "error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define POS_DIGITS 20 /* UINT64_MAX has 20 decimal digits */

struct archive_file {
	uint64_t pos;  /* log position of its first byte */
	uint64_t size; /* its bytes */
};

/* Room for a file's name after the directory's in a PATH_MAX path. */
#define DIR_MAX (PATH_MAX - 256)

/* It holds no descriptor between calls: a receiver serving a thousand
 * archived logs would otherwise spend two of its descriptors on each, and
 * what they cost in open(2) is nothing next to an fsync. */
struct archive {
	char dir[DIR_MAX];
	char name[64];
	bool tidy; /* removes what a crash left half-written */
	/* The listing, in log order: the archiver's thread grows it (room
	 * for a file it seals) while the log's thread reads it for a reader;
	 * list_lock covers every change and every look, never I/O. */
	pthread_mutex_t list_lock;
	struct archive_file *files;
	unsigned nfiles, cap;
	bool part_open; /* a stretch is being written */
	uint64_t part_pos, part_len;
	bool durable; /* the stretch is a file, not yet in the list */
};

/* NAME-<pos>.log, or with part .NAME-<pos>.log.part */
static void file_name(const struct archive *a, uint64_t pos, bool part,
		      char *out, size_t len)
{
	snprintf(out, len, "%s%s-%0*" PRIu64 ".log%s", part ? "." : "", a->name,
		 POS_DIGITS, pos, part ? ".part" : "");
}

static void file_path(const struct archive *a, uint64_t pos, bool part,
		      char *out, size_t len)
{
	char name[128];
	file_name(a, pos, part, name, sizeof(name));
	snprintf(out, len, "%s/%s", a->dir, name);
}

/* Whether entry is one of ours: a stretch (*part false) or a stretch left
 * half-written (*part true), at *pos. */
static bool parse_name(const struct archive *a, const char *entry,
		       uint64_t *pos, bool *part)
{
	*part = entry[0] == '.';
	const char *p = entry + (*part ? 1 : 0);
	size_t n = strlen(a->name);
	if (strncmp(p, a->name, n) || p[n] != '-')
		return false;
	p += n + 1;
	uint64_t v = 0;
	for (int i = 0; i < POS_DIGITS; i++, p++) {
		if (*p < '0' || *p > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*pos = v;
	return !strcmp(p, *part ? ".log.part" : ".log");
}

/* The listing's lock, from functions that only look (they take it all
 * the same: a look must not meet a change halfway). */
static void list_lock(const struct archive *a)
{
	pthread_mutex_lock((pthread_mutex_t *)&a->list_lock);
}

static void list_unlock(const struct archive *a)
{
	pthread_mutex_unlock((pthread_mutex_t *)&a->list_lock);
}

/* One more file listed (reserve: only the room for it). */
static int add_file(struct archive *a, uint64_t pos, uint64_t size,
		    bool reserve)
{
	int rc = 0;
	list_lock(a);
	if (a->nfiles == a->cap) {
		unsigned cap = a->cap ? 2 * a->cap : 16;
		void *p = realloc(a->files, cap * sizeof(*a->files));
		if (p) {
			a->files = p;
			a->cap = cap;
		}
		rc = p ? 0 : RS_E_NOMEM;
	}
	if (!rc && !reserve)
		a->files[a->nfiles++] = (struct archive_file){pos, size};
	list_unlock(a);
	return rc;
}

static int by_pos(const void *x, const void *y)
{
	const struct archive_file *a = x, *b = y;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* One directory entry: a stretch is listed, a .part file removed. */
static int take_entry(struct archive *a, const char *entry,
		      struct rs_error *err)
{
	uint64_t pos;
	bool part;
	if (!parse_name(a, entry, &pos, &part))
		return 0;
	if (part && !a->tidy)
		return 0;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", a->dir, entry);
	if (part) {
		if (unlink(path) && errno != ENOENT)
			return rs_error_set(err, RS_E_IO, errno,
					    "archive %s: cannot remove %s: %s",
					    a->dir, entry, strerror(errno));
		return 0;
	}
	struct stat st;
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return rs_error_set(err, RS_E_IO, errno,
				    "archive %s: %s is not a readable file",
				    a->dir, entry);
	if (add_file(a, pos, (uint64_t)st.st_size, false))
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	return 0;
}

static int list_files(struct archive *a, struct rs_error *err)
{
	DIR *d = opendir(a->dir);
	if (!d)
		return rs_error_set(err, RS_E_IO, errno,
				    "archive %s: %s; create the directory or "
				    "give another",
				    a->dir, strerror(errno));
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d)))
		rc = take_entry(a, e->d_name, err);
	closedir(d);
	if (!rc && a->nfiles)
		qsort(a->files, a->nfiles, sizeof(*a->files), by_pos);
	return rc;
}

/* The stretches must follow each other: a gap is history lost. */
static int check_contiguous(const struct archive *a, struct rs_error *err)
{
	for (unsigned i = 1; i < a->nfiles; i++) {
		const struct archive_file *p = &a->files[i - 1],
					  *f = &a->files[i];
		if (p->pos + p->size == f->pos && p->size)
			continue;
		char name[128];
		file_name(a, f->pos, false, name, sizeof(name));
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "archive %s: %s does not follow the file "
				    "before it (which ends at %" PRIu64
				    "); put back what is missing or move the "
				    "older files away",
				    a->dir, name, p->pos + p->size);
	}
	return 0;
}

static int open_archive(const char *dir, const char *name, bool tidy,
			struct archive **out, struct rs_error *err)
{
	struct archive *a = calloc(1, sizeof(*a));
	if (!a)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	if (strlen(dir) >= sizeof(a->dir)) {
		free(a);
		return rs_error_set(err, RS_E_INVAL, ENAMETOOLONG,
				    "archive %s: the path is too long", dir);
	}
	pthread_mutex_init(&a->list_lock, 0);
	snprintf(a->dir, sizeof(a->dir), "%s", dir);
	snprintf(a->name, sizeof(a->name), "%s", name[0] ? name : "log");
	a->tidy = tidy;
	int rc = list_files(a, err);
	if (!rc)
		rc = check_contiguous(a, err);
	if (rc) {
		archive_close(&a);
		return rc;
	}
	*out = a;
	return 0;
}

int archive_open(const char *dir, const char *name, struct archive **out,
		 struct rs_error *err)
{
	return open_archive(dir, name, true, out, err);
}

int archive_look(const char *dir, const char *name, struct archive **out,
		 struct rs_error *err)
{
	return open_archive(dir, name, false, out, err);
}

void archive_close(struct archive **ap)
{
	struct archive *a = *ap;
	if (!a)
		return;
	archive_stretch_abandon(a);
	free(a->files);
	pthread_mutex_destroy(&a->list_lock);
	free(a);
	*ap = 0;
}

struct archive_usage archive_usage(const struct archive *a)
{
	list_lock(a);
	struct archive_usage u = {.files = a->nfiles};
	if (a->nfiles) {
		const struct archive_file *last = &a->files[a->nfiles - 1];
		u.start = a->files[0].pos;
		u.end = last->pos + last->size;
	}
	list_unlock(a);
	return u;
}

const char *archive_dir(const struct archive *a)
{
	return a->dir;
}

/* ---- writing a stretch ---- */

/* A write error: a full disk is its own code, with its own fix. */
static int write_error(const struct archive *a, int e, const char *what,
		       struct rs_error *err)
{
	if (e == ENOSPC || e == EDQUOT)
		return rs_error_set(err, RS_E_FULL, e,
				    "archive %s: its disk is full (%s) while "
				    "%s; free space there or lower "
				    "archive-keep/archive-max",
				    a->dir, strerror(e), what);
	return rs_error_set(err, RS_E_IO, e, "archive %s: %s while %s", a->dir,
			    strerror(e), what);
}

/* The open stretch's .part file, opened for one operation: its descriptor,
 * or -1 with errno. */
static int part_open(const struct archive *a, int flags)
{
	char path[PATH_MAX];
	file_path(a, a->part_pos, true, path, sizeof(path));
	return open(path, flags | O_WRONLY | O_CLOEXEC, 0640);
}

int archive_stretch_begin(struct archive *a, uint64_t pos, struct rs_error *err)
{
	struct archive_usage u = archive_usage(a);
	if (u.files && pos != u.end)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "archive %s: a stretch at %" PRIu64
				    " would not follow its end %" PRIu64,
				    a->dir, pos, u.end);
	archive_stretch_abandon(a);
	a->part_pos = pos;
	int fd = part_open(a, O_CREAT | O_TRUNC);
	if (fd < 0)
		return write_error(a, errno, "creating a file", err);
	close(fd);
	a->part_open = true;
	a->part_len = 0;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t len, uint64_t *done)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : ENOSPC;
		p += n;
		len -= (size_t)n;
		*done += (uint64_t)n;
	}
	return 0;
}

int archive_stretch_append(struct archive *a, const void *buf, size_t len,
			   struct rs_error *err)
{
	int fd = part_open(a, O_APPEND);
	if (fd < 0)
		return write_error(a, errno, "archiving", err);
	int e = write_all(fd, buf, len, &a->part_len);
	close(fd);
	return e ? write_error(a, e, "archiving", err) : 0;
}

uint64_t archive_stretch_length(const struct archive *a)
{
	return a->part_open ? a->part_len : 0;
}

bool archive_stretch_active(const struct archive *a)
{
	return a->part_open;
}

/* fsync (or fdatasync) of the .part file, or of the directory: 0 or an
 * errno. */
static int sync_path(const char *path, int flags, bool data_only)
{
	int fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int e = (data_only ? fdatasync(fd) : fsync(fd)) ? errno : 0;
	close(fd);
	return e;
}

int archive_stretch_sync(struct archive *a, struct rs_error *err)
{
	char path[PATH_MAX];
	file_path(a, a->part_pos, true, path, sizeof(path));
	int e = sync_path(path, O_RDONLY, true);
	return e ? write_error(a, e, "making a file durable", err) : 0;
}

/* Room for one more file in the list, so that adopting cannot fail. */
static int reserve_file(struct archive *a)
{
	return add_file(a, 0, 0, true) ? -1 : 0;
}

int archive_stretch_make_durable(struct archive *a, struct rs_error *err)
{
	char part[PATH_MAX], name[PATH_MAX];
	file_path(a, a->part_pos, true, part, sizeof(part));
	file_path(a, a->part_pos, false, name, sizeof(name));
	int e = sync_path(part, O_RDONLY, false);
	if (e)
		return write_error(a, e, "making a file durable", err);
	if (reserve_file(a))
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	/* From now on a crash leaves it in the archive: durable under its
	 * name, in a durable directory. */
	e = rename(part, name) ? errno : sync_path(a->dir, O_DIRECTORY, false);
	if (e)
		return write_error(a, e, "naming a file", err);
	a->part_open = false;
	a->durable = true;
	return 0;
}

void archive_stretch_adopt(struct archive *a)
{
	if (!a->durable)
		return;
	add_file(a, a->part_pos, a->part_len, false); /* room reserved */
	a->durable = false;
}

int archive_stretch_seal(struct archive *a, struct rs_error *err)
{
	int rc = archive_stretch_make_durable(a, err);
	if (!rc)
		archive_stretch_adopt(a);
	return rc;
}

void archive_stretch_abandon(struct archive *a)
{
	if (!a->part_open)
		return;
	char part[PATH_MAX];
	file_path(a, a->part_pos, true, part, sizeof(part));
	a->part_open = false;
	unlink(part);
}

/* ---- pruning and reading ---- */

static bool over_limits(const struct archive *a, unsigned keep,
			uint64_t max_bytes)
{
	struct archive_usage u = archive_usage(a);
	return u.files > 1 && ((keep && u.files > keep) ||
			       (max_bytes && u.end - u.start > max_bytes));
}

/* The oldest file's unlinking (its listing is the caller's). */
static int remove_oldest(const struct archive *a, struct rs_error *err)
{
	char name[PATH_MAX];
	list_lock(a);
	uint64_t pos = a->files[0].pos;
	list_unlock(a);
	file_path(a, pos, false, name, sizeof(name));
	if (unlink(name) && errno != ENOENT)
		return rs_error_set(err, RS_E_IO, errno,
				    "cannot remove archive file %s: %s (the "
				    "archive's folder must be writable by "
				    "rpma-recv)",
				    name, strerror(errno));
	return 0;
}

int archive_prune(struct archive *a, unsigned keep, uint64_t max_bytes,
		  struct rs_error *err)
{
	int removed = 0;
	while (over_limits(a, keep, max_bytes)) {
		int rc = remove_oldest(a, err);
		if (rc)
			return rc;
		list_lock(a);
		memmove(a->files, a->files + 1,
			(a->nfiles - 1) * sizeof(*a->files));
		a->nfiles--;
		list_unlock(a);
		removed++;
	}
	return removed;
}

int archive_remove_all(struct archive *a, struct rs_error *err)
{
	archive_stretch_abandon(a);
	int rc = archive_prune(a, 1, 0, err);
	if (rc < 0 || !a->nfiles)
		return rc < 0 ? rc : 0;
	rc = remove_oldest(a, err);
	if (rc)
		return rc;
	list_lock(a);
	a->nfiles = 0;
	list_unlock(a);
	return 0;
}

int archive_locate(const struct archive *a, uint64_t pos, char *path,
		   uint64_t *file_offset, uint64_t *file_left,
		   struct rs_error *err)
{
	list_lock(a);
	unsigned lo = 0, hi = a->nfiles;
	while (lo < hi) { /* the first file that ends after pos */
		unsigned mid = lo + (hi - lo) / 2;
		if (a->files[mid].pos + a->files[mid].size <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	bool found = lo < a->nfiles && a->files[lo].pos <= pos;
	struct archive_file f = found ? a->files[lo] : (struct archive_file){0};
	list_unlock(a);
	if (!found)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "archive %s does not hold log position "
				    "%" PRIu64,
				    a->dir, pos);
	file_path(a, f.pos, false, path, PATH_MAX);
	*file_offset = pos - f.pos;
	*file_left = f.size - *file_offset;
	return 0;
}
