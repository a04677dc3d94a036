#include "input/follow_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SKIP_CHUNK 4096 /* NUL bytes looked at in one read */

static struct timespec realtime(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return t;
}

static int64_t ms_between(struct timespec a, struct timespec b)
{
	return (int64_t)(b.tv_sec - a.tv_sec) * 1000 +
	       (b.tv_nsec - a.tv_nsec) / 1000000;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

void follow_file_unopened(struct follow_file *ff, const char *name)
{
	memset(ff, 0, sizeof(*ff));
	ff->fd = ff->wd = ff->try_fd = -1;
	snprintf(ff->name, sizeof(ff->name), "%s", name);
}

static void account(struct follow_file *ff, const uint8_t *p, size_t n)
{
	XXH3_64bits_update(ff->hash, p, n);
	ff->pos += n;
	ff->quiet_at_ns = 0; /* it grew */
}

bool follow_file_take(struct follow_file *ff, int fd, const char *name,
		      uint64_t from)
{
	struct stat st;
	ff->hash = XXH3_createState();
	if (!ff->hash || fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		XXH3_freeState(ff->hash);
		ff->hash = NULL;
		close(fd);
		return false;
	}
	ff->fd = fd;
	ff->id = (struct follow_id){st.st_dev, st.st_ino};
	snprintf(ff->name, sizeof(ff->name), "%s", name);
	follow_file_rewind(ff);
	ff->fresh = false;
	uint8_t buf[1 << 16];
	while (ff->pos < from) {
		size_t want =
		    from - ff->pos < sizeof(buf) ? from - ff->pos : sizeof(buf);
		ssize_t n = pread(fd, buf, want, (off_t)ff->pos);
		if (n <= 0)
			break;
		account(ff, buf, (size_t)n);
	}
	return true;
}

bool follow_file_take_over(struct follow_file *copy,
			   const struct follow_file *ff, int fd,
			   const char *name)
{
	struct stat st;
	follow_file_unopened(copy, name);
	copy->hash = XXH3_createState();
	if (!copy->hash || fstat(fd, &st) != 0) {
		XXH3_freeState(copy->hash);
		copy->hash = NULL;
		return false;
	}
	XXH3_copyState(copy->hash, ff->hash);
	copy->fd = fd;
	copy->id = (struct follow_id){st.st_dev, st.st_ino};
	copy->pos = ff->pos;
	memcpy(copy->head, ff->head, ff->head_len);
	copy->head_len = ff->head_len;
	copy->seen = (uint64_t)st.st_size;
	copy->copy = true;
	return true;
}

void follow_file_close(struct follow_file *ff)
{
	if (ff->fd >= 0)
		close(ff->fd);
	if (ff->try_fd >= 0)
		close(ff->try_fd);
	XXH3_freeState(ff->hash);
	ff->hash = NULL;
	ff->fd = ff->try_fd = -1;
}

void follow_file_rewind(struct follow_file *ff)
{
	XXH3_64bits_reset(ff->hash);
	ff->pos = ff->head_len = ff->seen = 0;
	ff->seen_mtime = ff->seen_ctime = (struct timespec){0, 0};
	ff->at_end = false;
	ff->fresh = true;
	ff->touched = true; /* looked at afresh */
}

/* The file's first bytes, up to FOLLOW_HEAD, into head (as far as it
 * has them): false when those already kept are not there any more. */
static bool head_still(struct follow_file *ff, uint64_t size)
{
	uint8_t now[FOLLOW_HEAD];
	size_t want = size < FOLLOW_HEAD ? (size_t)size : FOLLOW_HEAD;
	if (want < ff->head_len)
		return false;
	ssize_t n = pread(ff->fd, now, want, 0);
	if (n < (ssize_t)ff->head_len)
		return n < 0; /* a read error tells nothing */
	if (memcmp(now, ff->head, ff->head_len) != 0)
		return false;
	memcpy(ff->head, now, (size_t)n);
	ff->head_len = (size_t)n;
	return true;
}

bool follow_file_truncated(struct follow_file *ff)
{
	struct stat st;
	if (ff->fd < 0 || ff->copy || fstat(ff->fd, &st) != 0)
		return false;
	uint64_t size = (uint64_t)st.st_size;
	if (size == ff->seen && same_time(st.st_mtim, ff->seen_mtime) &&
	    same_time(st.st_ctim, ff->seen_ctime))
		return false; /* unchanged since the last look */
	uint64_t known = ff->pos > ff->seen ? ff->pos : ff->seen;
	if (size < known || !head_still(ff, size))
		return true;
	ff->seen = size;
	ff->seen_mtime = st.st_mtim;
	ff->seen_ctime = st.st_ctim;
	return false;
}

static bool read_alike(const struct follow_file *ff, int fd);

bool follow_file_continued_by(const struct follow_file *ff, int fd)
{
	uint8_t start[FOLLOW_HEAD];
	struct stat st;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < ff->pos)
		return false;
	/* The copy may end before what was seen of the file: what was
	 * written between the copy and the truncation (seen here) is in no
	 * file. */
	size_t len = (uint64_t)st.st_size < ff->head_len ? (size_t)st.st_size
							 : ff->head_len;
	if (len == 0 || pread(fd, start, len, 0) != (ssize_t)len ||
	    memcmp(start, ff->head, len) != 0)
		return false;
	return ff->pos == 0 || read_alike(ff, fd);
}

/* Whether the first bytes of the file open on fd are those read of ff:
 * their hash. */
static bool read_alike(const struct follow_file *ff, int fd)
{
	XXH3_state_t *h = XXH3_createState();
	uint8_t buf[1 << 16];
	uint64_t at = 0;
	bool whole = h != NULL;
	if (h)
		XXH3_64bits_reset(h);
	while (whole && at < ff->pos) {
		size_t want =
		    ff->pos - at < sizeof(buf) ? ff->pos - at : sizeof(buf);
		ssize_t n = pread(fd, buf, want, (off_t)at);
		whole = n > 0;
		if (whole) {
			XXH3_64bits_update(h, buf, (size_t)n);
			at += (uint64_t)n;
		}
	}
	whole = whole && XXH3_64bits_digest(h) == XXH3_64bits_digest(ff->hash);
	XXH3_freeState(h);
	return whole;
}

/* A file read again after a truncation: what its start has of a hole
 * and of NUL bytes is passed over (a writer without O_APPEND goes on at
 * its old offset). False while it holds nothing else yet. */
static bool skip_hole(struct follow_file *ff)
{
	off_t data = lseek(ff->fd, (off_t)ff->pos, SEEK_DATA);
	if (data < 0 && errno == ENXIO)
		return false; /* all hole, or empty */
	static const uint8_t zeros[SKIP_CHUNK];
	uint64_t to = data > 0 ? (uint64_t)data : ff->pos;
	while (ff->pos < to) {
		uint64_t n =
		    to - ff->pos < SKIP_CHUNK ? to - ff->pos : SKIP_CHUNK;
		account(ff, zeros, (size_t)n);
	}
	uint8_t buf[SKIP_CHUNK];
	ssize_t n;
	while ((n = pread(ff->fd, buf, sizeof(buf), (off_t)ff->pos)) > 0) {
		ssize_t i = 0;
		while (i < n && buf[i] == 0)
			i++;
		account(ff, buf, (size_t)i);
		if (i < n)
			return true;
	}
	return false;
}

ssize_t follow_file_read(struct follow_file *ff, void *buf, size_t cap)
{
	if (ff->fresh) {
		if (!skip_hole(ff))
			return 0;
		ff->fresh = false;
	}
	ssize_t n = pread(ff->fd, buf, cap, (off_t)ff->pos);
	if (n > 0)
		account(ff, buf, (size_t)n);
	return n;
}

int64_t follow_file_quiet_in_ms(const struct follow_file *ff, uint64_t wait_ms)
{
	struct stat st;
	struct timespec last = ff->since;
	if (fstat(ff->fd, &st) == 0 && ms_between(last, st.st_mtim) > 0)
		last = st.st_mtim;
	int64_t left = (int64_t)wait_ms - ms_between(last, realtime());
	return left > 0 ? left : 0;
}

const char *follow_file_where(const struct follow_file *ff, char *buf,
			      size_t len)
{
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", ff->fd);
	ssize_t n = ff->fd >= 0 ? readlink(link, buf, len - 1) : -1;
	if (n <= 0)
		snprintf(buf, len, "%s", ff->name);
	else
		buf[n] = '\0';
	return buf;
}
