/* The shadow files of pools (shadow_store.h). */
#include "shadow_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

int shadow_store_open(const char *dir, const char *path, const uint8_t *now,
		      size_t size, uint8_t **out)
{
	char img[4096], pathf[4096];
	shadow_file(img, sizeof(img), dir, path, "img");
	shadow_file(pathf, sizeof(pathf), dir, path, "path");
	uint8_t *s = map_file(img, O_RDWR | O_CREAT, size);
	if (!s)
		return -1;
	memcpy(s, now, size);
	FILE *f = fopen(pathf, "we");
	if (!f || fprintf(f, "%s\n", path) < 0 || fclose(f)) {
		fprintf(stderr, "persist-shadow: cannot write %s\n", pathf);
		munmap(s, size);
		return -1;
	}
	*out = s;
	return 0;
}

void shadow_store_close(uint8_t *shadow, size_t size)
{
	munmap(shadow, size);
}

/* Puts the pool named in DIR/ENTRY (a NAME.path) back as NAME.img says. */
static int restore_one(const char *dir, const char *entry)
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
	size_t lost = 0, first = 0, last = 0;
	for (size_t b = 0; b < size; b += 4096) {
		size_t end = b + 4096 < size ? b + 4096 : size;
		if (!memcmp(pool + b, shadow + b, end - b))
			continue; /* most of a pool: quick */
		for (size_t i = b; i < end; i++)
			if (pool[i] != shadow[i]) {
				first = lost++ ? first : i;
				last = i;
			}
	}
	memcpy(pool, shadow, size);
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

int shadow_restore(const char *dir)
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
			n = restore_one(dir, e->d_name) ? -1 : n + 1;
	}
	closedir(d);
	return n;
}
