#include "stream/window.h"

#include "error.h"

#include <stdlib.h>
#include <string.h>

struct window_cursor {
	uint32_t next_post;    /* the next batch to post to the replica */
	uint32_t next_confirm; /* the oldest posted and not confirmed */
};

struct send_window {
	enum window_state state;
	enum window_error error;
	struct window_link link;
	uint16_t depth; /* batches in flight to one replica at most */
	uint32_t slots; /* batches the ring holds */
	uint32_t batch_max;
	uint8_t *ring; /* slots batches of batch_max bytes */
	size_t ring_len;
	struct window_batch *batches;
	uint32_t next_seq;	/* the open batch (being filled) */
	uint32_t committed_seq; /* oldest batch not yet committed */
	uint32_t oldest_seq;	/* oldest batch still held in the ring */
	uint32_t fill;		/* bytes in the open batch */
	uint64_t next_offset;	/* where the open batch goes */
	uint64_t first_offset;	/* where this stream began */
	uint64_t end_offset;	/* the end of the smallest replica's log */
	struct quorum quorum;
	struct window_cursor cursors[SEND_REPLICAS_MAX];
};

const char *window_state_name(enum window_state s)
{
	static const char *const names[] = {
	    [WINDOW_CONNECTING] = "connecting",
	    [WINDOW_STREAMING] = "streaming",
	    [WINDOW_DRAINING] = "draining",
	    [WINDOW_DONE] = "done",
	};
	return (unsigned)s <= WINDOW_DONE ? names[s] : "unknown";
}

static struct window_batch *batch_of(struct send_window *w, uint32_t seq)
{
	return &w->batches[seq % w->slots];
}

static uint64_t end_of(const struct window_batch *b)
{
	return b->offset + b->length;
}

const struct window_batch *window_batch(const struct send_window *w,
					uint32_t seq)
{
	return &w->batches[seq % w->slots];
}

bool window_streaming(const struct send_window *w)
{
	return w->state == WINDOW_STREAMING || w->state == WINDOW_DRAINING;
}

unsigned window_inflight(const struct send_window *w)
{
	return w->next_seq - w->oldest_seq;
}

unsigned window_inflight_of(const struct send_window *w, unsigned i)
{
	return w->cursors[i].next_post - w->cursors[i].next_confirm;
}

bool window_more_waiting(const struct send_window *w, unsigned i)
{
	return w->cursors[i].next_post != w->next_seq || w->fill > 0;
}

const struct window_batch *window_oldest_of(const struct send_window *w,
					    unsigned i)
{
	if (window_inflight_of(w, i) == 0)
		return 0;
	return window_batch(w, w->cursors[i].next_confirm);
}

uint64_t window_committed_input(const struct send_window *w)
{
	return quorum_committed(&w->quorum) - w->first_offset;
}

uint64_t window_replica_input(const struct send_window *w, unsigned i)
{
	return quorum_replica_offset(&w->quorum, i) - w->first_offset;
}

struct send_window *window_new(const struct window_link *link)
{
	struct send_window *w = calloc(1, sizeof(*w));
	if (!w)
		return 0;
	w->link = *link;
	w->state = WINDOW_CONNECTING;
	return w;
}

void window_delete(struct send_window *w)
{
	if (!w)
		return;
	free(w->ring);
	free(w->batches);
	free(w);
}

int window_connected(struct send_window *w, unsigned n, unsigned k,
		     uint16_t depth, uint32_t batch_max, uint64_t write_offset,
		     uint64_t end_offset)
{
	if (depth == 0 || quorum_init(&w->quorum, n, k, write_offset))
		return RS_E_INVAL;
	w->depth = depth;
	w->slots = n > 1 ? (uint32_t)depth * WINDOW_RING_FACTOR : depth;
	w->batch_max = batch_max;
	w->ring_len = (size_t)w->slots * batch_max;
	if (posix_memalign((void **)&w->ring, 4096, w->ring_len))
		w->ring = 0;
	w->batches = calloc(w->slots, sizeof(*w->batches));
	if (!w->ring || !w->batches) {
		w->error = WINDOW_NO_MEMORY;
		w->state = WINDOW_DONE;
		return RS_E_NOMEM;
	}
	for (uint32_t i = 0; i < w->slots; i++)
		w->batches[i].data = w->ring + (size_t)i * batch_max;
	w->next_offset = w->first_offset = write_offset;
	w->end_offset = end_offset;
	w->state = WINDOW_STREAMING;
	return 0;
}

bool window_log_full(const struct send_window *w)
{
	return w->next_offset + w->fill >= w->end_offset;
}

void window_set_end(struct send_window *w, uint64_t end_offset)
{
	if (end_offset >= w->next_offset + w->fill)
		w->end_offset = end_offset;
}

uint8_t *window_space(struct send_window *w, uint32_t *room)
{
	*room = 0;
	if (w->state != WINDOW_STREAMING || window_inflight(w) >= w->slots)
		return 0;
	uint64_t left = w->end_offset - (w->next_offset + w->fill);
	uint32_t in_batch = w->batch_max - w->fill;
	*room = left < in_batch ? (uint32_t)left : in_batch;
	return batch_of(w, w->next_seq)->data + w->fill;
}

/* Connected replicas are posted every batch as it closes. */
static bool connected(const struct send_window *w, unsigned i)
{
	enum replica_state s = quorum_replica_state(&w->quorum, i);
	return s == REPLICA_ACTIVE || s == REPLICA_CATCHING_UP;
}

/* Posts replica i what is closed and not yet posted to it, as far as its
 * credits allow. */
static void post_pending(struct send_window *w, unsigned i)
{
	struct window_cursor *c = &w->cursors[i];
	while (connected(w, i) && c->next_post != w->next_seq &&
	       window_inflight_of(w, i) < w->depth) {
		struct window_batch *b = batch_of(w, c->next_post);
		c->next_post++; /* in flight before posting: a failure rewinds
				 */
		int rc = w->link.post(w->link.ctx, i, b);
		if (rc == WINDOW_POST_LATER) {
			c->next_post--;
			break;
		}
		if (rc)
			window_lost(w, i);
	}
}

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
	for (unsigned i = 0; i < w->quorum.n; i++)
		post_pending(w, i);
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

/* After any change of what replicas confirmed or which count: reports
 * newly committed batches, frees the slots every live replica confirmed,
 * and ends the window when it is drained or the rule cannot be met. */
static void settle(struct send_window *w)
{
	uint64_t committed = quorum_committed(&w->quorum);
	while (w->committed_seq != w->next_seq &&
	       end_of(batch_of(w, w->committed_seq)) <= committed)
		w->link.committed(w->link.ctx, batch_of(w, w->committed_seq++));
	uint64_t floor = quorum_ring_floor(&w->quorum);
	if (floor > committed)
		floor = committed;
	while (w->oldest_seq != w->committed_seq &&
	       end_of(batch_of(w, w->oldest_seq)) <= floor)
		w->oldest_seq++;
	if (w->state == WINDOW_DONE)
		return;
	if (!quorum_viable(&w->quorum)) {
		w->error = WINDOW_TOO_FEW;
		w->state = WINDOW_DONE;
	} else if (w->state == WINDOW_DRAINING && window_inflight(w) == 0) {
		w->state = WINDOW_DONE;
	}
}

void window_input_end(struct send_window *w, uint64_t now_ns)
{
	window_flush(w, now_ns);
	if (w->state == WINDOW_STREAMING)
		w->state = WINDOW_DRAINING;
	settle(w);
}

int window_confirmed(struct send_window *w, unsigned i, uint32_t seq,
		     uint64_t remote_offset)
{
	if (i >= w->quorum.n || !connected(w, i))
		return 0; /* a straggler from a link given up on */
	struct window_cursor *c = &w->cursors[i];
	if (window_inflight_of(w, i) == 0 || seq != c->next_confirm ||
	    remote_offset != end_of(batch_of(w, seq)) ||
	    quorum_confirmed(&w->quorum, i, remote_offset))
		return RS_E_MALFORMED;
	c->next_confirm++;
	settle(w);
	post_pending(w, i);
	return 0;
}

void window_lost(struct send_window *w, unsigned i)
{
	if (i >= w->quorum.n || !connected(w, i))
		return;
	quorum_lost(&w->quorum, i);
	w->cursors[i].next_post = w->cursors[i].next_confirm;
}

/* Whether a batch starts at offset, among those held and the open one:
 * *seq is that one. */
static bool seq_at(struct send_window *w, uint64_t offset, uint32_t *seq)
{
	for (uint32_t s = w->oldest_seq; s != w->next_seq; s++)
		if (batch_of(w, s)->offset == offset) {
			*seq = s;
			return true;
		}
	*seq = w->next_seq;
	return offset == w->next_offset;
}

/* Where the ring's oldest held byte is. */
static uint64_t held_from(struct send_window *w)
{
	return w->oldest_seq != w->next_seq ? batch_of(w, w->oldest_seq)->offset
					    : w->next_offset;
}

enum window_rejoin window_rejoined(struct send_window *w, unsigned i,
				   uint64_t remote_offset)
{
	uint64_t had = quorum_replica_offset(&w->quorum, i);
	uint32_t seq = 0;
	enum window_rejoin why = WINDOW_REJOINED;
	if (remote_offset < had)
		why = WINDOW_SHRUNK;
	else if (remote_offset < held_from(w))
		why = WINDOW_GAP_GONE;
	else if (!seq_at(w, remote_offset, &seq))
		why = WINDOW_DIVERGED;
	if (why == WINDOW_DIVERGED) {
		window_drop(w, i);
		return why;
	}
	/* Shrunk or behind the ring, it is dropped at the length its log
	 * has now: the closing report says so. */
	if (quorum_rejoin(&w->quorum, i, remote_offset, held_from(w)) ==
	    REPLICA_DROPPED) {
		window_drop(w, i);
		return why == WINDOW_REJOINED ? WINDOW_GAP_GONE : why;
	}
	w->cursors[i].next_post = w->cursors[i].next_confirm = seq;
	settle(w);
	post_pending(w, i);
	return WINDOW_REJOINED;
}

void window_drop(struct send_window *w, unsigned i)
{
	quorum_drop(&w->quorum, i);
	w->cursors[i].next_post = w->cursors[i].next_confirm;
	settle(w);
}

unsigned window_drop_laggards(struct send_window *w)
{
	if (window_inflight(w) == 0)
		return 0;
	uint64_t needed = end_of(batch_of(w, w->oldest_seq));
	unsigned dropped = quorum_drop_laggards(&w->quorum, needed);
	if (dropped)
		settle(w);
	return dropped;
}

void window_stop(struct send_window *w)
{
	w->state = WINDOW_DONE;
}

/* ---- what the window is at ---- */

enum window_state window_state(const struct send_window *w)
{
	return w->state;
}

enum window_error window_error(const struct send_window *w)
{
	return w->error;
}

uint16_t window_depth(const struct send_window *w)
{
	return w->depth;
}

uint32_t window_slots(const struct send_window *w)
{
	return w->slots;
}

uint32_t window_batch_max(const struct send_window *w)
{
	return w->batch_max;
}

uint32_t window_fill(const struct send_window *w)
{
	return w->fill;
}

const struct quorum *window_quorum(const struct send_window *w)
{
	return &w->quorum;
}

uint8_t *window_ring(const struct send_window *w, size_t *len)
{
	*len = w->ring_len;
	return w->ring;
}

size_t window_ring_offset(const struct send_window *w,
			  const struct window_batch *b)
{
	return (size_t)(b->data - w->ring);
}

uint32_t window_slot_of(const struct send_window *w, uint32_t seq)
{
	return seq % w->depth;
}

uint64_t window_first_offset(const struct send_window *w)
{
	return w->first_offset;
}

uint64_t window_next_offset(const struct send_window *w)
{
	return w->next_offset;
}

uint64_t window_end_offset(const struct send_window *w)
{
	return w->end_offset;
}

bool window_ring_pinned(const struct send_window *w)
{
	return window_inflight(w) >= w->slots &&
	       quorum_active_count(&w->quorum) < quorum_live_count(&w->quorum);
}
