#include "rotation/internal.h"

#include "cli/log.h"
#include "error.h"
#include "pool/stop_at.h"
#include "proto/message.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the record, read at open (rotation/state.c stores it) ---- */

static void state_load(struct recv_rotation *r)
{
	const struct recv_pmem_target *t = r->t;
	r->recordable = t->start >= RECV_LOG_STATE_END;
	memset(&r->state, 0, sizeof(r->state));
	if (r->recordable)
		log_state_decode(t->base + RECV_LOG_STATE_OFFSET, t->uuid,
				 &r->state);
}

/* ---- opening: a rotation a crash cut short is finished ---- */

static int recover(struct recv_rotation *r, struct rs_error *err)
{
	struct archive_usage u = archive_usage(r->archive);
	uint64_t base = r->state.base, used = rotation_pool_used(r);
	if (u.files && u.end < base)
		rs_info("log %s: its archive %s ends at log position %" PRIu64
			", before the pool's start at %" PRIu64
			": the bytes between are no longer kept",
			rotation_label(r), archive_dir(r->archive), u.end,
			base);
	if (!u.files || u.end <= base)
		return 0;
	if (used == u.end - base) {
		/* Sealed, then cut short: the pool still holds it. */
		rs_info("log %s: finishing a rotation cut short: the pool's "
			"%" PRIu64 " bytes are in the archive already",
			rotation_label(r), used);
		recv_pmem_target_commit(r->t, r->t->start);
	} else if (used != 0) {
		return rs_error_set(
		    err, RS_E_MALFORMED, 0,
		    "log %s: its archive %s ends at log position %" PRIu64
		    ", past the pool's start at %" PRIu64
		    ", and the pool holds %" PRIu64
		    " bytes: they do not fit together (another log's "
		    "archive?); give the log an archive of its own",
		    rotation_label(r), archive_dir(r->archive), u.end, base,
		    used);
	}
	rotation_store(r, u.end);
	return 0;
}

static int check_config(const struct recv_rotation *r, struct rs_error *err)
{
	uint64_t size = r->t->end - r->t->start;
	if (!r->recordable)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "log %s: its pool's layout leaves no room "
				    "for the receiver's record, so it cannot "
				    "rotate; remove its archive",
				    rotation_label(r));
	if (r->cfg.max_bytes && r->cfg.max_bytes < size)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "log %s: archive-max %" PRIu64
				    " is less than the pool's %" PRIu64
				    " bytes, one rotation's worth; raise it",
				    rotation_label(r), r->cfg.max_bytes, size);
	return 0;
}

/* ---- the writer's rebase ---- */

static uint8_t status_of(int code)
{
	return code == RS_E_FULL ? RS_MSG_ARCHIVE_DISK_FULL
				 : RS_MSG_ARCHIVE_FAILED;
}

/* A seal copies this much at a time, the lock held: a slow archive disk
 * holds its log's lock for one chunk's write, and the archiver's other
 * turns go on in between. */
#define SEAL_CHUNK (4u << 20)

uint8_t rotation_seal_step(struct recv_rotation *r, uint64_t write, bool *done)
{
	struct rs_error err = {0};
	uint64_t used = write - r->t->start;
	uint64_t copied = archive_stretch_length(r->archive);
	uint64_t n = used - copied < SEAL_CHUNK ? used - copied : SEAL_CHUNK;
	int rc;
	*done = true;
	if (copied < used) {
		rc = rotation_copy_more(r, n, &err);
		*done = rc != 0; /* else durable at the next step */
	} else {
		rc = archive_stretch_make_durable(r->archive, &err);
	}
	if (rc) {
		rotation_archiver_failed(r, &err);
		return status_of(rc);
	}
	if (!*done)
		return RS_MSG_OK;
	atomic_store(&r->copied, 0);
	recv_stop_at("archive-sealed");
	return RS_MSG_OK;
}

uint8_t rotation_seal_durable(struct recv_rotation *r, uint64_t write)
{
	bool done = false;
	uint8_t status = RS_MSG_OK;
	while (!done)
		status = rotation_seal_step(r, write, &done);
	return status;
}

/* Whether the writer may rebase at write now: from what the log's thread
 * knows and the stretch's copied bytes as the archiver publishes them, so
 * that asking never waits for the archiver's I/O. */
static uint8_t rebase_check(struct recv_rotation *r, uint64_t write)
{
	const struct recv_pmem_target *t = r->t;
	if (atomic_load(&r->seal) != ROTATION_SEAL_NONE)
		return RS_MSG_BAD_REQUEST; /* one at a time */
	if (write != recv_pmem_target_write_offset(t) || write <= t->start ||
	    atomic_load(&r->copied) > write - t->start)
		return RS_MSG_BAD_REQUEST;
	if (r->cfg.max_bytes && write - t->start > r->cfg.max_bytes) {
		rs_err("log %s: the pool's %" PRIu64
		       " bytes are more than archive-max keeps",
		       rotation_label(r), write - t->start);
		return RS_MSG_ARCHIVE_LIMIT;
	}
	return RS_MSG_OK;
}

/* The durable stretch listed, the oldest files pruned, then the pool
 * started over and the new base recorded; the lock held. Only when the
 * log still ends where it was sealed: what was committed past the seal,
 * starting over would drop (nothing may move it meanwhile: a commit is
 * refused, a one-sided writer's word breaks a rule, pool/offset_word.h). */
static uint8_t rebase_finish(struct recv_rotation *r, uint64_t write,
			     uint64_t *base)
{
	struct recv_pmem_target *t = r->t;
	struct rs_error err = {0};
	uint64_t committed = recv_pmem_target_write_offset(t);
	if (committed != write) {
		rs_err("log %s: its committed end moved from %" PRIu64
		       " to %" PRIu64 " while its rotation waited for the "
		       "archive; the pool is not started over, nothing is "
		       "dropped",
		       rotation_label(r), write, committed);
		return RS_MSG_BAD_REQUEST;
	}
	archive_stretch_adopt(r->archive);
	if (archive_prune(r->archive, r->cfg.keep, r->cfg.max_bytes, &err) < 0)
		rs_err("log %s: %s", rotation_label(r), err.msg);
	rotation_publish(r);
	/* Durable in the archive: only now is the pool's space reused. */
	recv_pmem_target_commit(t, t->start);
	recv_stop_at("pool-rewound");
	rotation_store(r, r->state.base + (write - t->start));
	recv_stop_at("base-recorded");
	r->failed = false;
	r->stopped_copy = false;
	*base = r->state.base;
	rs_info("log %s: rotated %" PRIu64 " bytes into %s; the pool starts "
		"over at log position %" PRIu64,
		rotation_label(r), write - t->start, archive_dir(r->archive),
		*base);
	return RS_MSG_OK;
}

uint8_t recv_rotation_rebase(struct recv_rotation *r, uint64_t write,
			     uint64_t *base)
{
	if (!r->archive)
		return RS_MSG_NO_ARCHIVE;
	pthread_mutex_lock(&r->lock);
	uint8_t status = rebase_check(r, write);
	if (status == RS_MSG_OK)
		status = rotation_seal_durable(r, write);
	if (status == RS_MSG_OK)
		status = rebase_finish(r, write, base);
	pthread_mutex_unlock(&r->lock);
	return status;
}

uint8_t recv_rotation_rebase_begin(struct recv_rotation *r, uint64_t write)
{
	if (!r->archive)
		return RS_MSG_NO_ARCHIVE;
	uint8_t status = rebase_check(r, write);
	if (status != RS_MSG_OK)
		return status;
	r->seal_write = write;
	r->t->end_sealed = true;
	if (r->archiver) {
		/* Never the lock: the archiver may hold it across a slow
		 * disk's write; it takes seal_write after this store. */
		atomic_store(&r->seal, ROTATION_SEAL_WANTED);
		rotation_archiver_queue(r);
		return status;
	}
	pthread_mutex_lock(&r->lock);
	r->seal_status = rotation_seal_durable(r, write);
	atomic_store(&r->seal, ROTATION_SEAL_DONE);
	pthread_mutex_unlock(&r->lock);
	return status;
}

bool recv_rotation_rebase_poll(struct recv_rotation *r, uint8_t *status,
			       uint64_t *base)
{
	/* Not locked until it is done: the archiver holds the lock while it
	 * makes the files durable. */
	if (atomic_load(&r->seal) != ROTATION_SEAL_DONE)
		return false;
	pthread_mutex_lock(&r->lock);
	atomic_store(&r->seal, ROTATION_SEAL_NONE);
	*status = r->seal_status;
	if (*status == RS_MSG_OK)
		*status = rebase_finish(r, r->seal_write, base);
	r->t->end_sealed = false;
	pthread_mutex_unlock(&r->lock);
	return true;
}

void recv_rotation_nudge(struct recv_rotation *r)
{
	if (r->archive && r->archiver &&
	    atomic_load(&r->seal) == ROTATION_SEAL_NONE &&
	    rotation_copy_due(r, atomic_load(&r->copied)))
		rotation_archiver_queue(r);
}

bool recv_rotation_rebasing(const struct recv_rotation *r)
{
	return atomic_load(&r->seal) != ROTATION_SEAL_NONE;
}

void recv_rotation_on_rebased(struct recv_rotation *r, void (*wake)(void *),
			      void *ctx)
{
	r->wake_log = wake;
	r->wake_ctx = ctx;
}

/* ---- opening, closing, looking ---- */

static int open_archive(struct recv_rotation *r, struct rs_error *err)
{
	int rc = check_config(r, err);
	return rc ? rc : archive_open(r->cfg.dir, r->name, &r->archive, err);
}

int recv_rotation_open(const struct recv_rotation_config *cfg,
		       const char *log_name, struct recv_pmem_target *t,
		       struct recv_archiver *archiver,
		       struct recv_rotation **out, struct rs_error *err)
{
	struct recv_rotation *r = calloc(1, sizeof(*r));
	if (!r)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	r->cfg = *cfg;
	snprintf(r->name, sizeof(r->name), "%s", log_name);
	r->t = t;
	pthread_mutex_init(&r->lock, 0);
	state_load(r);
	/* A switch cut short first: after it, the archive is the new
	 * content's (none). */
	int rc = cfg->dir[0] ? open_archive(r, err) : 0;
	if (!rc)
		rotation_switch_recover(r);
	if (!rc && r->archive)
		rc = recover(r, err);
	if (!rc && r->archive)
		r->archiver = archiver;
	rotation_publish(r);
	if (rc) {
		recv_rotation_close(&r);
		return rc;
	}
	*out = r;
	return 0;
}

void recv_rotation_close(struct recv_rotation **rp)
{
	struct recv_rotation *r = *rp;
	if (!r)
		return;
	if (r->archiver)
		rotation_archiver_forget(r);
	archive_close(&r->archive);
	pthread_mutex_destroy(&r->lock);
	free(r);
	*rp = 0;
}

bool recv_rotation_enabled(const struct recv_rotation *r)
{
	return r->archive != 0;
}

uint64_t recv_rotation_base(const struct recv_rotation *r)
{
	return r->state.base;
}

uint64_t recv_rotation_first(const struct recv_rotation *r)
{
	if (!r->archive)
		return r->state.base;
	struct archive_usage u = archive_usage(r->archive);
	return u.files && u.end == r->state.base ? u.start : r->state.base;
}

uint64_t recv_rotation_content(const struct recv_rotation *r)
{
	return r->state.content;
}

uint64_t recv_rotation_end(const struct recv_rotation *r)
{
	return r->state.base + rotation_pool_used(r);
}

void recv_rotation_archived(struct recv_rotation *r, unsigned *files,
			    uint64_t *bytes, uint64_t *base)
{
	*files = atomic_load(&r->pub_files);
	*bytes = atomic_load(&r->pub_archived);
	*base = atomic_load(&r->pub_base);
}

int recv_rotation_read_archive(const struct recv_rotation *r, uint64_t pos,
			       void *dst, size_t len, struct rs_error *err)
{
	uint8_t *p = dst;
	while (len) {
		char path[PATH_MAX];
		uint64_t off, left;
		int rc = r->archive
			     ? archive_locate(r->archive, pos, path, &off,
					      &left, err)
			     : rs_error_set(err, RS_E_INVAL, 0, "no archive");
		if (rc)
			return rc;
		size_t n = left < len ? (size_t)left : len;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t got = fd < 0 ? -1 : pread(fd, p, n, (off_t)off);
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (got != (ssize_t)n)
			return rs_error_set(
			    err, RS_E_IO, got < 0 ? e : EIO,
			    "cannot read %s: %s", path,
			    got < 0 ? strerror(e) : "file shorter than listed");
		p += n;
		pos += n;
		len -= n;
	}
	return 0;
}
