#include "commands/resume_follow.h"

#include "cli/log.h"
#include "commands/resume_split.h"
#include "error.h"
#include "fetch/fetcher.h"
#include "input/follow_rotated.h"
#include "verify/verifier.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESUME_TAIL 4096     /* the log's last bytes looked for */
#define RESUME_MATCHES_MAX 4 /* places in one file tried */

/* The log's extent and its last bytes. */
struct log_tail {
	uint64_t first, end; /* log positions */
	uint8_t bytes[RESUME_TAIL];
	uint64_t len;
};

static int tail_write(void *ctx, const uint8_t *p, uint64_t len)
{
	struct log_tail *t = ctx;
	/* A log that grew while it was read: its newest bytes count. */
	while (len) {
		uint64_t room = RESUME_TAIL - t->len;
		if (room == 0) {
			uint64_t drop = len < RESUME_TAIL ? len : RESUME_TAIL;
			memmove(t->bytes, t->bytes + drop, RESUME_TAIL - drop);
			t->len -= drop;
			room = drop;
		}
		uint64_t take = len < room ? len : room;
		memcpy(t->bytes + t->len, p, take);
		t->len += take;
		p += take;
		len -= take;
	}
	return 0;
}

struct verify_config resume_verify_config(const struct ship_config *cfg)
{
	return (struct verify_config){
	    .remote = cfg->remote,
	    .timeout_ms = cfg->connect_timeout_ms,
	    .auth_key = cfg->auth_key,
	    .method = VERIFY_HASH,
	    .chunk = 1u << 20,
	    .depth = cfg->depth ? cfg->depth : VERIFY_DEPTH_DEFAULT,
	};
}

/* Reads the log's last bytes back. */
static int read_tail(const struct ship_config *cfg, struct log_tail *t)
{
	struct verify_config vc = resume_verify_config(cfg);
	int rc = verify_log_extent(&vc, &t->first, &t->end);
	if (rc || t->end == t->first)
		return rc;
	struct fetch_config fc = {
	    .remote = cfg->remote,
	    .timeout_ms = cfg->connect_timeout_ms,
	    .auth_key = cfg->auth_key,
	    .retries = cfg->retries,
	    .start = {.from = t->end - t->first > RESUME_TAIL
				  ? t->end - RESUME_TAIL
				  : t->first},
	};
	struct fetch_sink sink = {t, tail_write};
	struct fetch_result r = {0};
	rc = fetch_run(&fc, &sink, &r);
	if (!rc)
		t->end = r.at;
	return rc;
}

/* Whether the log's bytes before its tail are the first bytes of the
 * file on fd up to q, where the tail ends in it (hashes). */
static bool log_ends_with(const struct ship_config *cfg,
			  const struct log_tail *t, int fd, const char *name,
			  uint64_t q)
{
	uint64_t held = t->end - t->first;
	if (q > held) /* the log began inside the file: the tail is all */
		return t->len == held;
	struct verify_config vc = resume_verify_config(cfg);
	vc.offset = held - q;
	vc.length = q;
	vc.local_max = q;
	struct verify_result r;
	return lseek(fd, 0, SEEK_SET) == 0 &&
	       verify_run(&vc, fd, name, &r) == 0 && r.outcome == VERIFY_SAME &&
	       r.compared == q;
}

/* A file, open and mapped (fd -1 and p NULL when it cannot be). */
struct mapped {
	int fd;
	const uint8_t *p;
	size_t len;
};

static struct mapped map_file(const char *path)
{
	struct mapped m = {.fd = open(path, O_RDONLY | O_CLOEXEC)};
	struct stat st;
	if (m.fd >= 0 && fstat(m.fd, &st) == 0 && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			       m.fd, 0);
		if (p != MAP_FAILED)
			m = (struct mapped){m.fd, p, (size_t)st.st_size};
	}
	return m;
}

static void unmap_file(struct mapped m)
{
	if (m.p)
		munmap((void *)m.p, m.len);
	if (m.fd >= 0)
		close(m.fd);
}

/* Where in the file at path the log's tail ends, confirmed; 0 if not. */
static uint64_t tail_end_in(const struct ship_config *cfg,
			    const struct log_tail *t, const char *path)
{
	struct mapped m = map_file(path);
	uint64_t found = 0;
	if (m.p && m.len >= t->len) {
		/* Every place it is, the newest ones tried first. */
		size_t at[RESUME_MATCHES_MAX];
		int n = 0;
		const uint8_t *p = m.p, *hit;
		while ((hit = memmem(p, m.len - (size_t)(p - m.p), t->bytes,
				     t->len))) {
			at[n++ % RESUME_MATCHES_MAX] = (size_t)(hit - m.p);
			p = hit + 1;
		}
		for (int i = n - 1;
		     i >= 0 && i >= n - RESUME_MATCHES_MAX && !found; i--) {
			uint64_t q = at[i % RESUME_MATCHES_MAX] + t->len;
			if (log_ends_with(cfg, t, m.fd, path, q))
				found = q;
		}
	}
	unmap_file(m);
	return found;
}

/* Where the log's tail ends when it spans older's end and newer's start
 * (a rotation right after the sender shipped those bytes); 0 if not. */
static uint64_t tail_across(const struct log_tail *t, const char *older,
			    const char *newer)
{
	struct mapped o = map_file(older), n = map_file(newer);
	uint64_t q = o.p && n.p ? resume_split_at(t->bytes, t->len, o.p, o.len,
						  n.p, n.len)
				: 0;
	unmap_file(o);
	unmap_file(n);
	return q;
}

/* The plan: paths[0] from `from`, then copies newer than it, oldest
 * first, then FILE. RS_E_DIVERGED, said, when a copy on the way cannot be
 * read. */
static int chain(const char *path, const struct follow_copy *copies,
		 int from_copy, struct resume_follow_plan *plan)
{
	/* copies[] is newest first: from_copy, then the newer ones. */
	for (int i = from_copy; i >= 0; i--) {
		if (copies[i].compressed) {
			rs_err("cannot resume %s: its rotated copy %s was "
			       "compressed while the sender was down and its "
			       "lines were not all shipped; decompress it "
			       "beside %s and run again",
			       path, copies[i].path, path);
			return RS_E_DIVERGED;
		}
		if (plan->npaths == FOLLOW_FILES_MAX - 1) {
			rs_err("cannot resume %s: more than %d files were "
			       "rotated since the log's last bytes",
			       path, FOLLOW_FILES_MAX - 1);
			return RS_E_DIVERGED;
		}
		snprintf(plan->paths[plan->npaths++], PATH_MAX, "%s",
			 copies[i].path);
	}
	if (access(path, F_OK) == 0)
		snprintf(plan->paths[plan->npaths++], PATH_MAX, "%s", path);
	return 0;
}

int resume_follow_find(const struct ship_config *cfg, const char *path,
		       struct resume_follow_plan *plan)
{
	static struct log_tail t;
	static struct follow_copy copies[FOLLOW_ROTATED_MAX];
	memset(plan, 0, sizeof(*plan));
	memset(&t, 0, sizeof(t));
	int rc = read_tail(cfg, &t);
	if (rc)
		return rc;
	plan->held = t.end - t.first;
	if (plan->held == 0) /* nothing shipped: FILE from its start */
		return 0;
	uint64_t q = tail_end_in(cfg, &t, path);
	if (q) {
		rs_info("the remote log's last bytes end at byte %llu of %s; "
			"following it from there",
			(unsigned long long)q, path);
		plan->from = q;
		snprintf(plan->paths[plan->npaths++], PATH_MAX, "%s", path);
		return 0;
	}
	int n = follow_rotated_list(path, copies, FOLLOW_ROTATED_MAX, true);
	for (int i = 0; i < n; i++) {
		if (copies[i].compressed ||
		    !(q = tail_end_in(cfg, &t, copies[i].path)))
			continue;
		rs_info("the remote log's last bytes end at byte %llu of %s, "
			"rotated while the sender was down; shipping the rest "
			"of it, the copies after it and %s",
			(unsigned long long)q, copies[i].path, path);
		plan->from = q;
		return chain(path, copies, i, plan);
	}
	/* Across a rotation: copies[i + 1]'s end, then copies[i] (or the
	 * file, for i == -1). */
	for (int i = -1; i + 1 < n; i++) {
		if (copies[i + 1].compressed ||
		    (i >= 0 && copies[i].compressed))
			continue;
		const char *newer = i < 0 ? path : copies[i].path;
		if (!(q = tail_across(&t, copies[i + 1].path, newer)))
			continue;
		rs_info("the remote log's last bytes end at byte %llu of %s, "
			"the rest of them in %s, rotated before it; following "
			"it from there",
			(unsigned long long)q, newer, copies[i + 1].path);
		plan->from = q;
		if (i < 0) {
			snprintf(plan->paths[plan->npaths++], PATH_MAX, "%s",
				 path);
			return 0;
		}
		return chain(path, copies, i, plan);
	}
	rs_err("cannot resume %s: the remote log's last %llu bytes are in "
	       "neither it nor a rotated copy beside it (uncompressed, named "
	       "after it); ship the rest by hand, or start over with "
	       "--truncate",
	       path, (unsigned long long)t.len);
	return RS_E_DIVERGED;
}
