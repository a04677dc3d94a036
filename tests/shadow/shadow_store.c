/* The shadow files of pools (shadow_store.h). */
#include "shadow_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* DIR/NAME.EXT, NAME the pool's path with its slashes as '%'. */
static void shadow_file(char *out, size_t cap, const char *dir,
			const char *path, const char *ext)
{
	char name[1024];
	size_t i = 0;
	for (; path[i] && i + 1 < sizeof(name); i++)
		name[i] = path[i] == '/' ? '%' : path[i];
	name[i] = 0;
	snprintf(out, cap, "%s/%s.%s", dir, name, ext);
}

/* All n bytes of src at off of fd; 0, or -1 with errno. */
static int pwrite_all(int fd, const uint8_t *src, uint64_t off, size_t n)
{
	while (n) {
		ssize_t w = pwrite(fd, src, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		src += w, off += (uint64_t)w, n -= (size_t)w;
	}
	return 0;
}

static uint8_t *map_file(const char *file, int flags, size_t size)
{
	int fd = open(file, flags | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "persist-shadow: cannot open %s: %s\n", file,
			strerror(errno));
		return 0;
	}
	void *p = MAP_FAILED;
	if (!(flags & O_CREAT) || ftruncate(fd, (off_t)size) == 0)
		p = mmap(0, size,
			 (flags & O_ACCMODE) == O_RDONLY
			     ? PROT_READ
			     : PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		fprintf(stderr, "persist-shadow: cannot map %s: %s\n", file,
			strerror(errno));
	close(fd);
	return p == MAP_FAILED ? 0 : p;
}

/* Writes NAME.path (the pool's path) into dir, whole or not at all: a new
 * file renamed over the old, so a cut while it is written leaves the old. */
static int write_path(const char *dir, const char *path)
{
	char pathf[4096], fresh[4096 + 4];
	shadow_file(pathf, sizeof(pathf), dir, path, "path");
	snprintf(fresh, sizeof(fresh), "%s.new", pathf);
	FILE *f = fopen(fresh, "we");
	bool ok = f && fprintf(f, "%s\n", path) >= 0 && !fflush(f) &&
		  !fsync(fileno(f));
	if (f && fclose(f))
		ok = false;
	if (!ok || rename(fresh, pathf)) {
		fprintf(stderr, "persist-shadow: cannot write %s\n", pathf);
		return -1;
	}
	return 0;
}

/* The mirror's NAME.img written whole from now, and its NAME.path: an fd,
 * or -1 with a line on stderr. O_DSYNC: on a 9p share (cache=mmap) a write
 * may wait in the guest's page cache; without it, a cut of a Debian 13
 * host found the mirror's offset word 8-10 MiB behind the data written
 * through after it, a loss the receiver never made. Written as NAME.img.new
 * and renamed over NAME.img once whole: a cut while a receiver starts
 * (tens of MiB through the share under TCG) must leave the last mirror,
 * which is what the pool holds then, not a part of the new one (a
 * campaign's restore found a mirror cut short, 60923904 bytes, and could
 * not map the device-DAX by its length). */
static int mirror_open(const char *dir, const char *path, const uint8_t *now,
		       size_t size)
{
	char img[4096], fresh[4096 + 4];
	shadow_file(img, sizeof(img), dir, path, "img");
	snprintf(fresh, sizeof(fresh), "%s.new", img);
	/* the whole image in one write and one sync (O_DSYNC would sync
	 * each piece 9p cuts it into), then the descriptor persists follow */
	int fd = open(fresh, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	bool whole = fd >= 0 && !pwrite_all(fd, now, 0, size) && !fdatasync(fd);
	if (fd >= 0)
		close(fd);
	fd = whole && !rename(fresh, img)
		 ? open(img, O_WRONLY | O_DSYNC | O_CLOEXEC)
		 : -1;
	if (fd < 0 || write_path(dir, path)) {
		fprintf(stderr, "persist-shadow: cannot write the mirror %s\n",
			img);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int shadow_store_open(const char *dir, const char *path, const uint8_t *now,
		      size_t size, struct shadow *out)
{
	char img[4096];
	shadow_file(img, sizeof(img), dir, path, "img");
	uint8_t *s = map_file(img, O_RDWR | O_CREAT, size);
	if (!s)
		return -1;
	memcpy(s, now, size);
	const char *mirror = getenv("RPMA_SHADOW_MIRROR");
	int fd = -1;
	if (write_path(dir, path) ||
	    (mirror && *mirror &&
	     (fd = mirror_open(mirror, path, now, size)) < 0)) {
		munmap(s, size);
		return -1;
	}
	*out = (struct shadow){.img = s, .size = size, .mirror = fd};
	return 0;
}

void shadow_store_copy(const struct shadow *s, const uint8_t *pool,
		       uint64_t from, uint64_t to)
{
	if (from >= to)
		return;
	memcpy(s->img + from, pool + from, to - from);
	/* a mirror that cannot follow must not pass */
	if (s->mirror >= 0 &&
	    pwrite_all(s->mirror, pool + from, from, to - from))
		abort();
}

void shadow_store_close(struct shadow *s)
{
	munmap(s->img, s->size);
	if (s->mirror >= 0)
		close(s->mirror);
	*s = (struct shadow){.mirror = -1};
}

/* Puts the pool named in DIR/ENTRY (a NAME.path) back as NAME.img says,
 * but for [keep_from, keep_to). */
static int restore_one(const char *dir, const char *entry, uint64_t keep_from,
		       uint64_t keep_to)
{
	char file[4096], path[4096] = "";
	snprintf(file, sizeof(file), "%s/%s", dir, entry);
	FILE *f = fopen(file, "re");
	if (!f || !fgets(path, sizeof(path), f)) {
		fprintf(stderr, "persist-shadow: cannot read %s\n", file);
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	path[strcspn(path, "\n")] = 0;
	snprintf(file + strlen(file) - strlen("path"), 5, "img");
	struct stat st;
	if (stat(file, &st)) {
		fprintf(stderr, "persist-shadow: no shadow %s\n", file);
		return -1;
	}
	size_t size = (size_t)st.st_size;
	uint8_t *shadow = map_file(file, O_RDONLY, size);
	uint8_t *pool = shadow ? map_file(path, O_RDWR, size) : 0;
	if (!pool) {
		if (shadow)
			munmap(shadow, size);
		return -1;
	}
	size_t from = keep_from < size ? (size_t)keep_from : size;
	size_t to = keep_to < size ? (size_t)keep_to : size;
	to = to > from ? to : from;
	size_t lost = 0, first = 0, last = 0;
	for (size_t b = 0; b < size; b += 4096) {
		size_t end = b + 4096 < size ? b + 4096 : size;
		if (!memcmp(pool + b, shadow + b, end - b))
			continue; /* most of a pool: quick */
		for (size_t i = b; i < end; i++)
			if (pool[i] != shadow[i] && (i < from || i >= to)) {
				first = lost++ ? first : i;
				last = i;
			}
	}
	memcpy(pool, shadow, from); /* [from, to) as the pool holds it */
	memcpy(pool + to, shadow + to, size - to);
	/* a device-DAX takes its stores as they come (and no msync) */
	int rc = stat(path, &st) || !S_ISCHR(st.st_mode)
		     ? msync(pool, size, MS_SYNC)
		     : 0;
	munmap(pool, size);
	munmap(shadow, size);
	if (rc) {
		fprintf(stderr, "persist-shadow: msync %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	printf("restored %s from its shadow: %zu bytes were not persistent",
	       path, lost);
	printf(lost ? " (file offsets %zu to %zu)\n" : "\n", first, last);
	return 0;
}

int shadow_restore(const char *dir, uint64_t keep_from, uint64_t keep_to)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "persist-shadow: cannot open %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	int n = 0;
	struct dirent *e;
	while (n >= 0 && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 5 && !strcmp(e->d_name + len - 5, ".path"))
			n = restore_one(dir, e->d_name, keep_from, keep_to)
				? -1
				: n + 1;
	}
	closedir(d);
	return n;
}
