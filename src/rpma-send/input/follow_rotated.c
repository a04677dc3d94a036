#include "input/follow_rotated.h"

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is_separator(char c)
{
	return c != '\0' && strchr(".-_", c);
}

const char *follow_rotated_compression(const char *name)
{
	static const char *const suffixes[] = {".gz",  ".xz",  ".bz2",
					       ".zst", ".lz4", ".Z"};
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++)
		if (ends_with(name, suffixes[i]))
			return suffixes[i];
	return NULL;
}

/* Where a copy's own part of its name lies, [*from, *to) of name, a
 * compression suffix left out: after base and a separator (app.log.1,
 * app.log-20261126), or, for logrotate's `extension`, between the stem's
 * separator and base's extension (app.1.log, then app.1.log.gz; or
 * app-20261126.log). False when name is no copy of base. */
static bool copy_part(const char *name, const char *base, size_t *from,
		      size_t *to)
{
	size_t n = strlen(base), len = strlen(name);
	const char *z = follow_rotated_compression(name);
	if (z)
		len -= strlen(z);
	if (strncmp(name, base, n) == 0 && is_separator(name[n]) &&
	    name[n + 1] != '\0') {
		*from = n + 1, *to = len;
		return true;
	}
	const char *ext = strrchr(base, '.');
	if (!ext || ext == base)
		return false;
	size_t stem = (size_t)(ext - base), ext_len = strlen(ext);
	if (strncmp(name, base, stem) != 0 || !is_separator(name[stem]) ||
	    len <= stem + 1 + ext_len ||
	    strncmp(name + len - ext_len, ext, ext_len) != 0)
		return false;
	*from = stem + 1, *to = len - ext_len;
	return true;
}

bool follow_rotated_is_copy_name(const char *name, const char *base)
{
	size_t from, to;
	return copy_part(name, base, &from, &to);
}

/* N when a copy's own part of its name, [from, to), is logrotate's number
 * (app.log.N, app.N.log, either compressed); else -1. */
static long rotation_number(const char *name, size_t from, size_t to)
{
	if (from >= to || to - from > 6) /* a date: no N */
		return -1;
	long number = 0;
	for (size_t i = from; i < to; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		number = number * 10 + (name[i] - '0');
	}
	return number;
}

/* Newest first; qsort's order. File times tick coarsely (a few ms): two
 * copies made within one tick are told apart by logrotate's numbers (the
 * smaller is newer), else by name, the greater first (a date in it). */
static int by_age(const void *pa, const void *pb)
{
	const struct follow_copy *a = pa, *b = pb;
	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec > b->mtime.tv_sec ? -1 : 1;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec > b->mtime.tv_nsec ? -1 : 1;
	if (a->number >= 0 && b->number >= 0 && a->number != b->number)
		return a->number < b->number ? -1 : 1;
	return strcmp(b->path, a->path);
}

/* Fills c from the directory entry name if it is a copy of base. */
static bool copy_of(const char *dir, const char *name, const char *base,
		    const struct stat *self, bool compressed,
		    struct follow_copy *c)
{
	struct stat st;
	size_t from, to;
	if (!copy_part(name, base, &from, &to))
		return false;
	c->compressed = follow_rotated_compression(name) != NULL;
	if (c->compressed && !compressed)
		return false;
	if (snprintf(c->path, sizeof(c->path), "%s/%s", dir, name) >=
	    (int)sizeof(c->path))
		return false;
	if (stat(c->path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (self && st.st_dev == self->st_dev && st.st_ino == self->st_ino))
		return false;
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->size = (uint64_t)st.st_size;
	c->mtime = st.st_mtim;
	c->number = rotation_number(name, from, to);
	return true;
}

/* What copies are found: a growing array. */
struct found {
	struct follow_copy *all;
	int n, cap;
	const char *base;
	const struct stat *self;
	bool compressed;
	const struct timespec *since; /* modified not before, if set */
};

static bool modified_since(const struct follow_copy *c,
			   const struct timespec *since)
{
	if (!since)
		return true;
	return c->mtime.tv_sec != since->tv_sec
		   ? c->mtime.tv_sec > since->tv_sec
		   : c->mtime.tv_nsec >= since->tv_nsec;
}

static bool room_for_one(struct found *f)
{
	if (f->n < f->cap)
		return true;
	int cap = f->cap ? 2 * f->cap : 16;
	struct follow_copy *more = realloc(f->all, (size_t)cap * sizeof(*more));
	if (!more)
		return false;
	f->all = more;
	f->cap = cap;
	return true;
}

/* The copies in dir; with below, in the directories in it too (olddir). */
static void collect(struct found *f, const char *dir, bool below)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)) && room_for_one(f)) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (below && (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)) {
			char sub[PATH_MAX];
			struct stat st;
			if (snprintf(sub, sizeof(sub), "%s/%s", dir,
				     e->d_name) < (int)sizeof(sub) &&
			    lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
				collect(f, sub, false);
				continue;
			}
		}
		f->n += copy_of(dir, e->d_name, f->base, f->self, f->compressed,
				&f->all[f->n]) &&
			modified_since(&f->all[f->n], f->since);
	}
	if (d)
		closedir(d);
}

/* Every copy of path found (f->all, newest first; the caller frees it). */
static void gather(struct found *f, const char *path, bool below)
{
	char dcopy[PATH_MAX], bcopy[PATH_MAX];
	snprintf(dcopy, sizeof(dcopy), "%s", path);
	snprintf(bcopy, sizeof(bcopy), "%s", path);
	struct stat self;
	f->base = basename(bcopy);
	f->self = stat(path, &self) == 0 ? &self : NULL;
	collect(f, dirname(dcopy), below);
	if (f->n > 0)
		qsort(f->all, (size_t)f->n, sizeof(*f->all), by_age);
	f->self = NULL;
	f->base = NULL;
}

static int list(const char *path, struct follow_copy *out, int max,
		bool compressed, bool below)
{
	struct found f = {.compressed = compressed};
	if (max <= 0)
		return 0;
	/* Every copy, then the newest max of them. */
	gather(&f, path, below);
	int n = f.n > max ? max : f.n;
	if (n > 0)
		memcpy(out, f.all, (size_t)n * sizeof(*out));
	free(f.all);
	return n;
}

int follow_rotated_list_since(const char *path, struct timespec since,
			      struct follow_copy **out)
{
	struct found f = {.compressed = true, .since = &since};
	gather(&f, path, false);
	*out = f.all;
	return f.n;
}

int follow_rotated_list(const char *path, struct follow_copy *out, int max,
			bool compressed)
{
	return list(path, out, max, compressed, false);
}

int follow_rotated_list_near(const char *path, struct follow_copy *out, int max)
{
	return list(path, out, max, false, true);
}

uint64_t follow_rotated_hash(int fd, uint64_t len, int *short_read)
{
	static __thread uint8_t buf[1 << 16];
	XXH3_state_t *h = XXH3_createState();
	uint64_t at = 0;
	*short_read = !h;
	if (!h)
		return 0;
	XXH3_64bits_reset(h);
	while (at < len) {
		size_t want = len - at < sizeof(buf) ? len - at : sizeof(buf);
		ssize_t n = pread(fd, buf, want, (off_t)at);
		if (n <= 0) {
			*short_read = 1;
			break;
		}
		XXH3_64bits_update(h, buf, (size_t)n);
		at += (uint64_t)n;
	}
	uint64_t digest = XXH3_64bits_digest(h);
	XXH3_freeState(h);
	return digest;
}
