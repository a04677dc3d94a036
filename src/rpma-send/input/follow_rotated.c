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

/* Named after base, going on with a separator. */
static bool is_copy_name(const char *name, const char *base)
{
	size_t n = strlen(base);
	return strncmp(name, base, n) == 0 && name[n] != '\0' &&
	       strchr(".-_", name[n]) && name[n + 1] != '\0';
}

static bool is_compressed(const char *name)
{
	static const char *const suffixes[] = {".gz",  ".xz",  ".bz2",
					       ".zst", ".lz4", ".Z"};
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++)
		if (ends_with(name, suffixes[i]))
			return true;
	return false;
}

/* Newest first; qsort's order. */
static int by_age(const void *pa, const void *pb)
{
	const struct follow_copy *a = pa, *b = pb;
	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec > b->mtime.tv_sec ? -1 : 1;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec > b->mtime.tv_nsec ? -1 : 1;
	return strcmp(a->path, b->path);
}

/* Fills c from the directory entry name if it is a copy of base. */
static bool copy_of(const char *dir, const char *name, const char *base,
		    const struct stat *self, bool compressed,
		    struct follow_copy *c)
{
	struct stat st;
	if (!is_copy_name(name, base))
		return false;
	c->compressed = is_compressed(name);
	if (c->compressed && !compressed)
		return false;
	snprintf(c->path, sizeof(c->path), "%s/%s", dir, name);
	if (stat(c->path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (self && st.st_dev == self->st_dev && st.st_ino == self->st_ino))
		return false;
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->size = (uint64_t)st.st_size;
	c->mtime = st.st_mtim;
	return true;
}

int follow_rotated_list(const char *path, struct follow_copy *out, int max,
			bool compressed)
{
	char dcopy[PATH_MAX], bcopy[PATH_MAX];
	snprintf(dcopy, sizeof(dcopy), "%s", path);
	snprintf(bcopy, sizeof(bcopy), "%s", path);
	const char *dir = dirname(dcopy), *base = basename(bcopy);
	struct stat self;
	bool has_self = stat(path, &self) == 0;
	DIR *d = max > 0 ? opendir(dir) : NULL;
	if (!d)
		return 0;
	/* Every copy, then the newest max of them. */
	int n = 0, cap = 0;
	struct follow_copy *all = NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			struct follow_copy *more =
			    realloc(all, (size_t)cap * sizeof(*all));
			if (!more)
				break;
			all = more;
		}
		n += copy_of(dir, e->d_name, base, has_self ? &self : NULL,
			     compressed, &all[n]);
	}
	closedir(d);
	if (n > 0)
		qsort(all, (size_t)n, sizeof(*all), by_age);
	if (n > max)
		n = max;
	if (n > 0)
		memcpy(out, all, (size_t)n * sizeof(*all));
	free(all);
	return n;
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
