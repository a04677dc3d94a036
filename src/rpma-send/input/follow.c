#include "input/follow.h"

#include "cli/log.h"
#include "input/follow_rotated.h"
#include "input/follow_watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#define FOLLOW_POLL_MS 20     /* without events: look again after */
#define FOLLOW_SAFETY_MS 500  /* with events: look anyway after */
#define FOLLOW_MARK 4096      /* bytes kept of a file's start and last read */
#define FOLLOW_COPIES_TRIED 4 /* rotated copies hashed for a continuation */

/* One file read, or waiting its turn. */
struct follow_file {
	int fd;
	int wd; /* its inotify watch */
	dev_t dev;
	ino_t ino;
	char name[PATH_MAX]; /* for messages */
	uint64_t pos;	     /* bytes read */
	XXH3_state_t *hash;  /* of those bytes */
	uint8_t head[FOLLOW_MARK], tail[FOLLOW_MARK];
	size_t head_len, tail_len;
	bool at_end; /* its last read found nothing: look before reading on */
	bool superseded; /* a newer file came to the path at `since` */
	struct timespec since;
};

struct follower {
	char path[PATH_MAX];
	uint64_t rotate_wait_ms;
	struct follow_watch watch;
	struct follow_file files[FOLLOW_FILES_MAX]; /* [0]: being read */
	int nfiles;
	/* A rotated copy's bytes past what was read of a file truncated in
	 * place, read before that file's new content. */
	int copy_fd;
	uint64_t copy_pos, copy_end;
};

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

static struct timespec later(struct timespec a, struct timespec b)
{
	return ms_between(a, b) > 0 ? b : a;
}

/* ---- one file's account of what was read ---- */

static void file_account(struct follow_file *ff, const uint8_t *p, size_t n)
{
	XXH3_64bits_update(ff->hash, p, n);
	if (ff->head_len < FOLLOW_MARK) {
		size_t take = FOLLOW_MARK - ff->head_len;
		take = take < n ? take : n;
		memcpy(ff->head + ff->head_len, p, take);
		ff->head_len += take;
	}
	if (n >= FOLLOW_MARK) {
		memcpy(ff->tail, p + n - FOLLOW_MARK, FOLLOW_MARK);
		ff->tail_len = FOLLOW_MARK;
	} else {
		size_t keep = ff->tail_len + n > FOLLOW_MARK ? FOLLOW_MARK - n
							     : ff->tail_len;
		memmove(ff->tail, ff->tail + ff->tail_len - keep, keep);
		memcpy(ff->tail + keep, p, n);
		ff->tail_len = keep + n;
	}
	ff->pos += n;
}

/* Nothing read yet: reading starts at from. */
static void file_rewind(struct follow_file *ff)
{
	XXH3_64bits_reset(ff->hash);
	ff->pos = ff->head_len = ff->tail_len = 0;
	ff->at_end = false;
}

/* Takes fd as a file to read from byte `from` (what lies before it
 * counted as read). False, fd closed, when it cannot. */
static bool file_take(struct follower *f, struct follow_file *ff, int fd,
		      const char *name, uint64_t from)
{
	struct stat st;
	memset(ff, 0, sizeof(*ff));
	ff->fd = fd;
	ff->hash = XXH3_createState();
	if (!ff->hash || fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		XXH3_freeState(ff->hash);
		close(fd);
		return false;
	}
	ff->dev = st.st_dev;
	ff->ino = st.st_ino;
	snprintf(ff->name, sizeof(ff->name), "%s", name);
	file_rewind(ff);
	uint8_t buf[1 << 16];
	while (ff->pos < from) {
		size_t want =
		    from - ff->pos < sizeof(buf) ? from - ff->pos : sizeof(buf);
		ssize_t n = pread(fd, buf, want, (off_t)ff->pos);
		if (n <= 0)
			break;
		file_account(ff, buf, (size_t)n);
	}
	lseek(fd, (off_t)ff->pos, SEEK_SET);
	ff->wd = follow_watch_file(&f->watch, fd);
	return true;
}

static void file_drop(struct follower *f, struct follow_file *ff)
{
	follow_watch_forget(&f->watch, ff->wd);
	close(ff->fd);
	XXH3_freeState(ff->hash);
	ff->fd = -1;
}

/* ---- the queue: [0] is read, the others wait their turn ---- */

static bool queued(const struct follower *f, dev_t dev, ino_t ino)
{
	for (int i = 0; i < f->nfiles; i++)
		if (f->files[i].dev == dev && f->files[i].ino == ino)
			return true;
	return false;
}

/* A file that waits behind a newer one has been superseded since now. */
static void supersede(struct follow_file *ff)
{
	if (!ff->superseded) {
		ff->superseded = true;
		ff->since = realtime();
	}
}

/* Opens name and queues it at position `at` (0 to nfiles) unless it is
 * queued already (by identity). True when a file joined. */
static bool enqueue_at(struct follower *f, const char *name, uint64_t from,
		       int at)
{
	if (f->nfiles == FOLLOW_FILES_MAX)
		return false;
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || queued(f, st.st_dev, st.st_ino)) {
		close(fd);
		return false;
	}
	struct follow_file ff;
	if (!file_take(f, &ff, fd, name, from))
		return false;
	memmove(&f->files[at + 1], &f->files[at],
		(size_t)(f->nfiles - at) * sizeof(f->files[0]));
	f->files[at] = ff;
	f->nfiles++;
	if (at > 0)
		supersede(&f->files[at - 1]);
	if (at < f->nfiles - 1)
		supersede(&f->files[at]);
	return true;
}

static bool enqueue(struct follower *f, const char *name, uint64_t from)
{
	return enqueue_at(f, name, from, f->nfiles);
}

static void dequeue(struct follower *f)
{
	file_drop(f, &f->files[0]);
	memmove(&f->files[0], &f->files[1],
		(size_t)(f->nfiles - 1) * sizeof(f->files[0]));
	f->nfiles--;
}

/* The path names a file not seen yet: it joins the queue. */
static void look_at_path(struct follower *f)
{
	struct stat st;
	if (stat(f->path, &st) != 0 || queued(f, st.st_dev, st.st_ino))
		return;
	bool had = f->nfiles > 0;
	if (enqueue(f, f->path, 0) && had)
		rs_info("%s now names another file; reading the one before "
			"until it has been quiet for %llu ms",
			f->path, (unsigned long long)f->rotate_wait_ms);
}

/* Whether the path names ff now. */
static bool at_path(const struct follower *f, const struct follow_file *ff)
{
	struct stat st;
	return stat(f->path, &st) == 0 && st.st_dev == ff->dev &&
	       st.st_ino == ff->ino;
}

/* A file that held the path between two looks and was renamed away
 * before it was seen (logrotate renames a file an application created
 * between its rename and its create to NAME-DATE.backup) is queued where
 * it stood: before the newest queued file if that one still holds the
 * path (it came after), else last. */
static void take_departures(struct follower *f)
{
	struct follow_departure departed[FOLLOW_DEPARTURES_MAX];
	int n = follow_watch_drain(&f->watch, departed, FOLLOW_DEPARTURES_MAX);
	for (int i = 0; i < n; i++) {
		const char *to = departed[i].to;
		struct stat st;
		if (!to[0] || stat(to, &st) != 0 ||
		    queued(f, st.st_dev, st.st_ino))
			continue;
		int at = f->nfiles;
		if (at > 0 && at_path(f, &f->files[at - 1]))
			at--;
		if (at == 0 && f->nfiles > 0) {
			/* Before the file being read: too late for its turn. */
			rs_warn(
			    "%s was renamed to %s before it was read, while "
			    "the file after it was being read; not read",
			    f->path, to);
			continue;
		}
		if (enqueue_at(f, to, 0, at))
			rs_info("%s was renamed to %s before it was read; "
				"reading it in its turn",
				f->path, to);
	}
}

/* ---- a file truncated in place ---- */

/* Whether the file no longer holds what was read of it: shorter than
 * that, or its last bytes read are not there any more (it was truncated
 * and written past that point before this looked). A file rewritten with
 * the very same bytes there cannot be told from one that grew. */
static bool rewritten(const struct follow_file *ff)
{
	struct stat st;
	if (fstat(ff->fd, &st) != 0)
		return false;
	if ((uint64_t)st.st_size < ff->pos)
		return true;
	uint8_t now[FOLLOW_MARK];
	ssize_t n =
	    pread(ff->fd, now, ff->tail_len, (off_t)(ff->pos - ff->tail_len));
	return n == (ssize_t)ff->tail_len &&
	       memcmp(now, ff->tail, ff->tail_len) != 0;
}

/* Whether the copy open on fd starts with what was read of ff. */
static bool continues(const struct follow_file *ff, int fd)
{
	uint8_t start[FOLLOW_MARK];
	int short_read;
	return pread(fd, start, ff->head_len, 0) == (ssize_t)ff->head_len &&
	       memcmp(start, ff->head, ff->head_len) == 0 &&
	       follow_rotated_hash(fd, ff->pos, &short_read) ==
		   XXH3_64bits_digest(ff->hash) &&
	       !short_read;
}

/* The newest rotated copy that holds what was read of ff and more: what
 * it holds beyond is read next. */
static void find_continuation(struct follower *f, const struct follow_file *ff)
{
	struct follow_copy copies[FOLLOW_COPIES_TRIED];
	int n =
	    follow_rotated_list(f->path, copies, FOLLOW_COPIES_TRIED, false);
	for (int i = 0; i < n; i++) {
		if (copies[i].size <= ff->pos)
			continue;
		int fd = open(copies[i].path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (continues(ff, fd)) {
			rs_info("%s was truncated in place with %llu bytes not "
				"read yet; shipping them from %s first",
				f->path,
				(unsigned long long)(copies[i].size - ff->pos),
				copies[i].path);
			f->copy_fd = fd;
			f->copy_pos = ff->pos;
			f->copy_end = copies[i].size;
			return;
		}
		close(fd);
	}
	rs_info("%s was truncated in place; reading it again from its first "
		"byte",
		f->path);
}

static void start_over(struct follower *f, struct follow_file *ff)
{
	if (ff->pos > 0)
		find_continuation(f, ff);
	lseek(ff->fd, 0, SEEK_SET);
	file_rewind(ff);
}

static ssize_t read_copy(struct follower *f, void *buf, size_t cap)
{
	uint64_t left = f->copy_end - f->copy_pos;
	ssize_t n =
	    pread(f->copy_fd, buf, left < cap ? left : cap, (off_t)f->copy_pos);
	if (n > 0)
		f->copy_pos += (uint64_t)n;
	if (n <= 0 || f->copy_pos == f->copy_end) {
		close(f->copy_fd);
		f->copy_fd = -1;
	}
	return n > 0 ? n : 0;
}

/* ---- reading ---- */

/* Milliseconds until ff, read to its end and superseded, has been quiet
 * for the grace period (0: it has). */
static int64_t quiet_in_ms(const struct follower *f,
			   const struct follow_file *ff)
{
	struct stat st;
	struct timespec last = ff->since;
	if (fstat(ff->fd, &st) == 0)
		last = later(last, st.st_mtim);
	int64_t left =
	    (int64_t)f->rotate_wait_ms - ms_between(last, realtime());
	return left > 0 ? left : 0;
}

/* The file being read is at its end: done with it when a newer one waits
 * and it has been quiet long enough. */
static bool done_with_current(struct follower *f)
{
	const struct follow_file *ff = &f->files[0];
	if (f->nfiles < 2 || quiet_in_ms(f, ff) > 0)
		return false;
	rs_info("done with %s (quiet for %llu ms, %llu bytes); reading %s",
		ff->name, (unsigned long long)f->rotate_wait_ms,
		(unsigned long long)ff->pos, f->files[1].name);
	return true;
}

ssize_t follower_read(struct follower *f, void *buf, size_t cap)
{
	take_departures(f);
	for (int turn = 0; turn <= 2 * FOLLOW_FILES_MAX + 2; turn++) {
		if (f->copy_fd >= 0) {
			ssize_t n = read_copy(f, buf, cap);
			if (n > 0)
				return n;
		}
		struct follow_file *ff = &f->files[0];
		if (f->nfiles == 0 || ff->at_end)
			look_at_path(f);
		if (f->nfiles == 0)
			return 0;
		/* Before every read, not only at the end: a file truncated
		 * while a backlog of it was being read, and written past that
		 * point again, would otherwise go on with its new content's
		 * middle. */
		if (rewritten(ff)) {
			start_over(f, ff);
			continue;
		}
		ssize_t n = read(ff->fd, buf, cap);
		if (n > 0) {
			file_account(ff, buf, (size_t)n);
			ff->at_end = false;
			return n;
		}
		if (n < 0)
			return -1;
		if (!ff->at_end) {
			/* At its end: truncated, or rotated? Look at once. */
			ff->at_end = true;
			continue;
		}
		if (!done_with_current(f))
			return 0;
		dequeue(f);
	}
	return 0;
}

/* ---- the follower ---- */

struct follower *follower_new(const char *path, uint64_t rotate_wait_ms)
{
	struct follower *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->rotate_wait_ms = rotate_wait_ms;
	f->copy_fd = -1;
	follow_watch_open(&f->watch, path);
	return f;
}

void follower_free(struct follower *f)
{
	if (!f)
		return;
	while (f->nfiles > 0)
		dequeue(f);
	if (f->copy_fd >= 0)
		close(f->copy_fd);
	follow_watch_close(&f->watch);
	free(f);
}

bool follower_start_at(struct follower *f, const char *const *paths, int n,
		       uint64_t from)
{
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && queued(f, st.st_dev, st.st_ino))
			continue;
		if (!enqueue(f, paths[i], i == 0 ? from : 0))
			return false;
	}
	return true;
}

int follower_wake_fd(const struct follower *f)
{
	return f->watch.fd;
}

uint64_t follower_recheck_ms(const struct follower *f)
{
	uint64_t ms =
	    follow_watch_active(&f->watch) ? FOLLOW_SAFETY_MS : FOLLOW_POLL_MS;
	if (f->nfiles > 1 && f->files[0].at_end) {
		uint64_t quiet = (uint64_t)quiet_in_ms(f, &f->files[0]);
		if (quiet < ms)
			ms = quiet;
	}
	return ms;
}

void follower_stop_waiting(struct follower *f)
{
	f->rotate_wait_ms = 0;
}
