/* The archiver of a log with an archive: a thread that, once the pool is
 * rotate-at full, copies its committed bytes into the open stretch while
 * the writer appends, so that the writer's rebase has little left to do. */
#include "rotation/internal.h"

#include "cli/log.h"
#include "error.h"

#include <time.h>

#define COPY_CHUNK (1u << 20)	 /* copied at a time, the lock held */
#define SYNC_EVERY (64ull << 20) /* the stretch made durable this often */
#define ARCHIVER_IDLE_MS 50	 /* how often an idle archiver looks */

void rotation_archiver_failed(struct recv_rotation *r, const struct rs_error *e)
{
	rs_err("log %s: %s", rotation_label(r), e->msg);
	r->failed = true; /* the writer's rebase tries again */
}

int rotation_copy_more(struct recv_rotation *r, uint64_t n,
		       struct rs_error *err)
{
	const struct rs_pmem_target *t = r->t;
	if (!archive_stretch_active(r->archive)) {
		int rc = archive_stretch_begin(r->archive, r->state.base, err);
		if (rc)
			return rc;
		r->synced = 0;
	}
	uint64_t at = t->start + archive_stretch_length(r->archive);
	int rc = archive_stretch_append(r->archive, t->base + at, n, err);
	uint64_t len = archive_stretch_length(r->archive);
	if (!rc && len - r->synced >= SYNC_EVERY) {
		rc = archive_stretch_sync(r->archive, err);
		r->synced = len;
	}
	/* The tests' first stop: bytes copied, nothing sealed (whether this
	 * thread or the writer's rebase copied them). */
	if (!rc && !r->stopped_copy) {
		r->stopped_copy = true;
		rotation_stop_at("archive-copy");
	}
	return rc;
}

/* One chunk, the lock held, once the pool is rotate-at full. True when
 * it copied something. */
static bool archive_some(struct recv_rotation *r)
{
	uint64_t size = r->t->end - r->t->start, used = rotation_pool_used(r);
	uint64_t copied = archive_stretch_length(r->archive);
	if (r->failed || used * 100 < size * r->cfg.rotate_at || copied >= used)
		return false;
	uint64_t n = used - copied < COPY_CHUNK ? used - copied : COPY_CHUNK;
	struct rs_error err = {0};
	if (rotation_copy_more(r, n, &err)) {
		rotation_archiver_failed(r, &err);
		return false;
	}
	return true;
}

static void idle_wait(struct recv_rotation *r)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += ARCHIVER_IDLE_MS * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&r->wake, &r->lock, &until);
}

void *rotation_archiver_main(void *arg)
{
	struct recv_rotation *r = arg;
	pthread_mutex_lock(&r->lock);
	while (!r->stop)
		if (!archive_some(r))
			idle_wait(r);
	pthread_mutex_unlock(&r->lock);
	return 0;
}
