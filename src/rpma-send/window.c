#include "window.h"

#include <stdlib.h>
#include <string.h>

const char *window_state_name(enum window_state s)
{
	static const char *const names[] = {
	    [WINDOW_CONNECTING] = "connecting",
	    [WINDOW_STREAMING] = "streaming",
	    [WINDOW_DRAINING] = "draining",
	    [WINDOW_RECONNECTING] = "reconnecting",
	    [WINDOW_DONE] = "done",
	};
	return (unsigned)s <= WINDOW_DONE ? names[s] : "unknown";
}

static struct window_batch *batch_of(struct send_window *w, uint32_t seq)
{
	return &w->batches[seq % w->depth];
}

unsigned window_inflight(const struct send_window *w)
{
	return w->next_seq - w->oldest_seq;
}

uint64_t window_committed_input(const struct send_window *w)
{
	return w->committed_offset - w->first_offset;
}

void window_init(struct send_window *w, const struct window_link *link)
{
	memset(w, 0, sizeof(*w));
	w->link = *link;
	w->state = WINDOW_CONNECTING;
}

void window_fini(struct send_window *w)
{
	free(w->ring);
	free(w->batches);
	w->ring = 0;
	w->batches = 0;
}

int window_connected(struct send_window *w, uint16_t depth, uint32_t batch_max,
		     uint64_t write_offset, uint64_t end_offset)
{
	w->depth = depth;
	w->batch_max = batch_max;
	w->ring_len = (size_t)depth * batch_max;
	if (posix_memalign((void **)&w->ring, 4096, w->ring_len))
		w->ring = 0;
	w->batches = calloc(depth, sizeof(*w->batches));
	if (!w->ring || !w->batches) {
		w->error = WINDOW_NO_MEMORY;
		w->state = WINDOW_DONE;
		return -1;
	}
	for (uint16_t i = 0; i < depth; i++)
		w->batches[i].data = w->ring + (size_t)i * batch_max;
	w->next_offset = w->committed_offset = w->first_offset = write_offset;
	w->end_offset = end_offset;
	w->state = WINDOW_STREAMING;
	return 0;
}

bool window_log_full(const struct send_window *w)
{
	return w->next_offset + w->fill >= w->end_offset;
}

uint8_t *window_space(struct send_window *w, uint32_t *room)
{
	*room = 0;
	if (w->state != WINDOW_STREAMING || window_inflight(w) >= w->depth)
		return 0;
	uint64_t left = w->end_offset - (w->next_offset + w->fill);
	uint32_t in_batch = w->batch_max - w->fill;
	*room = left < in_batch ? (uint32_t)left : in_batch;
	return batch_of(w, w->next_seq)->data + w->fill;
}

/* Counted in flight before posting, so a failed post is sent again. */
static void post_open(struct send_window *w, uint64_t now_ns)
{
	struct window_batch *b = batch_of(w, w->next_seq);
	b->seq = w->next_seq;
	b->offset = w->next_offset;
	b->length = w->fill;
	b->posted_ns = now_ns;
	w->next_seq++;
	w->next_offset += w->fill;
	w->fill = 0;
	if (w->link.post(w->link.ctx, b))
		window_lost(w);
}

void window_filled(struct send_window *w, uint32_t n, uint64_t now_ns)
{
	w->fill += n;
	if (w->fill == w->batch_max || window_log_full(w))
		post_open(w, now_ns);
}

void window_flush(struct send_window *w, uint64_t now_ns)
{
	if (w->fill > 0 && w->state == WINDOW_STREAMING)
		post_open(w, now_ns);
}

static void finish_if_drained(struct send_window *w)
{
	if (w->state == WINDOW_DRAINING && window_inflight(w) == 0)
		w->state = WINDOW_DONE;
}

void window_input_end(struct send_window *w, uint64_t now_ns)
{
	window_flush(w, now_ns);
	if (w->state == WINDOW_STREAMING)
		w->state = WINDOW_DRAINING;
	else if (w->state == WINDOW_RECONNECTING)
		w->resume_state = WINDOW_DRAINING;
	finish_if_drained(w);
}

static void commit_oldest(struct send_window *w)
{
	struct window_batch *b = batch_of(w, w->oldest_seq);
	w->committed_offset = b->offset + b->length;
	w->oldest_seq++;
	w->link.committed(w->link.ctx, b);
}

static void fail(struct send_window *w, enum window_error e)
{
	w->error = e;
	w->state = WINDOW_DONE;
}

void window_confirmed(struct send_window *w, uint32_t seq,
		      uint64_t remote_offset)
{
	if (w->state != WINDOW_STREAMING && w->state != WINDOW_DRAINING)
		return; /* a straggler from a connection given up on */
	struct window_batch *b = batch_of(w, w->oldest_seq);
	if (window_inflight(w) == 0 || seq != w->oldest_seq ||
	    remote_offset != b->offset + b->length) {
		fail(w, WINDOW_OUT_OF_ORDER);
		return;
	}
	commit_oldest(w);
	finish_if_drained(w);
}

void window_lost(struct send_window *w)
{
	if (w->state != WINDOW_STREAMING && w->state != WINDOW_DRAINING)
		return;
	w->resume_state = w->state;
	w->state = WINDOW_RECONNECTING;
}

void window_reconnected(struct send_window *w, uint64_t remote_offset)
{
	if (w->state != WINDOW_RECONNECTING)
		return;
	while (window_inflight(w) > 0 &&
	       remote_offset >= batch_of(w, w->oldest_seq)->offset +
				    batch_of(w, w->oldest_seq)->length)
		commit_oldest(w);
	if (remote_offset != w->committed_offset) {
		fail(w, WINDOW_DIVERGED);
		return;
	}
	w->state = w->resume_state;
	for (uint32_t seq = w->oldest_seq; seq != w->next_seq; seq++) {
		if (w->link.post(w->link.ctx, batch_of(w, seq))) {
			window_lost(w);
			return;
		}
	}
	finish_if_drained(w);
}

void window_stop(struct send_window *w)
{
	w->state = WINDOW_DONE;
}
