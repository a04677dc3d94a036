/* Switching a replacement in: the record says so first, then the
 * replacement is moved to the data range's start in chunks no larger than
 * the gap before it (so no chunk overwrites what is still to be moved),
 * each recorded as done, then the write offset covers it, the archive's
 * files (the old content's) go and the record is cleared. A crash at any
 * step is finished when the log is next opened. */
#include "rotation/internal.h"

#include "cli/log.h"
#include "error.h"
#include "pool/stop_at.h"
#include "proto/message.h"

#include <inttypes.h>
#include <string.h>

static void store_switch(struct recv_rotation *r, uint64_t base,
			 const struct log_switch *sw)
{
	r->state.sw = *sw;
	rotation_store(r, base);
}

static void move_chunks(struct recv_rotation *r)
{
	const struct recv_pmem_target *t = r->t;
	struct log_switch sw = r->state.sw;
	uint64_t chunks = sw.len ? (sw.len + sw.chunk - 1) / sw.chunk : 0;
	while (sw.src != t->start && sw.done < chunks) {
		uint64_t off = sw.done * sw.chunk;
		uint64_t n = sw.len - off < sw.chunk ? sw.len - off : sw.chunk;
		t->memcpy_persist(t->base + t->start + off,
				  t->base + sw.src + off, n, 0);
		sw.done++;
		store_switch(r, r->state.base, &sw);
		recv_stop_at("switch-moving");
	}
}

/* Moves what is left, then makes it the log. */
static void finish(struct recv_rotation *r)
{
	struct rs_error err = {0};
	move_chunks(r);
	recv_pmem_target_commit(r->t, r->t->start + r->state.sw.len);
	recv_stop_at("switch-committed");
	if (r->archive && archive_remove_all(r->archive, &err))
		rs_err("log %s: %s", rotation_label(r), err.msg);
	if (r->state.sw.len) /* (an emptying is said by its caller) */
		rs_info("log %s: its replacement of %" PRIu64
			" bytes is the log now",
			rotation_label(r), r->state.sw.len);
	r->state.content++; /* readers of the old one must know */
	store_switch(r, 0, &(struct log_switch){0});
}

void rotation_switch_recover(struct recv_rotation *r)
{
	if (!r->state.sw.chunk)
		return;
	rs_info("log %s: finishing the switch to its replacement, cut short",
		rotation_label(r));
	finish(r);
}

uint8_t recv_rotation_switch(struct recv_rotation *r, uint64_t src,
			     uint64_t len)
{
	const struct recv_pmem_target *t = r->t;
	if (!r->recordable || src < t->start || src > t->end ||
	    len > t->end - src)
		return RS_MSG_BAD_REQUEST;
	uint64_t gap = src - t->start;
	/* chunk is never 0 in a switch under way: an empty replacement (the
	 * log emptied) moves nothing in one chunk. */
	struct log_switch sw = {
	    .src = src, .len = len, .chunk = gap && gap < len ? gap : len};
	if (!sw.chunk)
		sw.chunk = 1;
	pthread_mutex_lock(&r->lock);
	if (atomic_load(&r->seal) != ROTATION_SEAL_NONE) {
		/* a rebase under way owns the pool until it is finished */
		pthread_mutex_unlock(&r->lock);
		return RS_MSG_BAD_REQUEST;
	}
	rotation_abandon_stretch(r);
	/* Decided: from here on the next open finishes it. */
	store_switch(r, r->state.base, &sw);
	recv_stop_at("switch-recorded");
	finish(r);
	pthread_mutex_unlock(&r->lock);
	return RS_MSG_OK;
}

void recv_rotation_empty(struct recv_rotation *r)
{
	if (r->recordable)
		recv_rotation_switch(r, r->t->start, 0);
	else /* no record, no archive: one store empties it */
		recv_pmem_target_commit(r->t, r->t->start);
}
