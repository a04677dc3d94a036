/* The sender's batch window: one ring of batch slots shared by every
 * replica a stream goes to. Each batch is numbered and placed at its
 * position in the log (bytes from the start of the data range, the same on
 * every replica); it is posted to every connected replica, counts as
 * committed once the commit rule (stream/quorum.h: all replicas, or k of them)
 * says so, and its slot is reused only when every replica still counted
 * has confirmed it, so that a replica that lost its link is resent exactly
 * its gap. No RDMA here: the window posts through its link (the replicas
 * in rpma-send, a fake in the unit tests) and is driven by events:
 *
 *   CONNECTING --connected--> STREAMING --input ended--> DRAINING
 *   DRAINING --every live replica confirmed the last batch--> DONE
 *   any --fewer than k replicas left, or a fatal error--> DONE
 *
 * Each replica has a cursor: the next batch to post to it and the oldest
 * it has not confirmed; at most depth batches are in flight to each (its
 * receiver's credits). Losing a replica's link rewinds its cursor; when it
 * rejoins, it is posted everything after what its log holds. With several
 * replicas the ring holds WINDOW_RING_FACTOR times depth batches, so that
 * the others stream on while one reconnects and its gap is still held. */
#ifndef SEND_WINDOW_H
#define SEND_WINDOW_H

#include "stream/quorum.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WINDOW_RING_FACTOR 4

enum window_state {
	WINDOW_CONNECTING, /* no grant yet */
	WINDOW_STREAMING,  /* taking input, batches in flight */
	WINDOW_DRAINING,   /* input over: the last confirmations are due */
	WINDOW_DONE,
};

const char *window_state_name(enum window_state s);

struct window_batch {
	uint8_t *data;
	uint32_t seq;
	uint64_t offset; /* where it goes in every replica's log */
	uint32_t length;
	uint64_t posted_ns; /* when it was closed: for the commit latency */
};

#define WINDOW_POST_LATER 1

struct window_link {
	void *ctx;
	/* Writes b to replica i and asks for its commit. WINDOW_POST_LATER:
	 * not now, i cannot take b before a batch in flight to it is
	 * confirmed (b is posted again then); other non-zero: i's link is
	 * lost. */
	int (*post)(void *ctx, unsigned i, struct window_batch *b);
	/* b is committed under the rule. */
	void (*committed)(void *ctx, const struct window_batch *b);
};

/* Why a window ended badly. */
enum window_error {
	WINDOW_OK = 0,
	WINDOW_TOO_FEW, /* fewer replicas left than the rule needs */
	WINDOW_NO_MEMORY,
};

/* The window's state is its own: it is driven through the calls below and
 * looked at through the accessors after them. */
struct send_window;

/* A window in CONNECTING that posts through link; NULL when out of
 * memory. */
struct send_window *window_new(const struct window_link *link);
void window_delete(struct send_window *w);

/* The first grants: n replicas whose logs all end at write_offset, of
 * which k must confirm a batch; sizes the ring and starts streaming.
 * RS_E_NOMEM when the ring cannot be allocated, RS_E_INVAL when depth is
 * 0 or k, n are out of range. */
int window_connected(struct send_window *w, unsigned n, unsigned k,
		     uint16_t depth, uint32_t batch_max, uint64_t write_offset,
		     uint64_t end_offset);

/* Where the next input bytes go and how many fit (0: wait for a
 * confirmation, or the log is full: see window_log_full). */
uint8_t *window_space(struct send_window *w, uint32_t *room);
/* n bytes were placed in the space; a full batch is posted. */
void window_filled(struct send_window *w, uint32_t n, uint64_t now_ns);
/* Posts the open batch, if it holds anything (the input went idle). */
void window_flush(struct send_window *w, uint64_t now_ns);
/* No more input: flush, then drain. */
void window_input_end(struct send_window *w, uint64_t now_ns);
/* True when the remote log has no room for another byte. */
bool window_log_full(const struct send_window *w);
/* The smallest replica's log ends further now (a full pool was archived
 * and started over): room for more. An end before the open batch's is
 * ignored. */
void window_set_end(struct send_window *w, uint64_t end_offset);

/* Replica i committed batch seq; its log now ends at remote_offset.
 * RS_E_MALFORMED, nothing changed, when that is not the confirmation due
 * (the oldest batch posted to i, ending there): the caller should drop
 * i. */
int window_confirmed(struct send_window *w, unsigned i, uint32_t seq,
		     uint64_t remote_offset);
/* Replica i's link went down: nothing in flight to it is known to be
 * committed; it keeps what it confirmed and holds the ring until it
 * rejoins or is dropped. */
void window_lost(struct send_window *w, unsigned i);

enum window_rejoin {
	WINDOW_REJOINED, /* posted again everything after its log's end */
	WINDOW_SHRUNK,	 /* its log is shorter than it confirmed: dropped */
	WINDOW_GAP_GONE, /* its log ends before the ring: dropped */
	WINDOW_DIVERGED, /* its log ends inside a batch or past the stream */
};

/* Replica i is connected again and its log ends at remote_offset: the
 * batches it holds count as confirmed, the rest are posted again in
 * order. Anything but REJOINED drops it. */
enum window_rejoin window_rejoined(struct send_window *w, unsigned i,
				   uint64_t remote_offset);
/* Gives replica i up for good. */
void window_drop(struct send_window *w, unsigned i);
/* The ring is full and the input has more: drops lost replicas that pin
 * its oldest batch while more than k remain. Returns how many. */
unsigned window_drop_laggards(struct send_window *w);
/* Stops for good (a fatal error elsewhere). */
void window_stop(struct send_window *w);

/* STREAMING or DRAINING: batches may be in flight. */
bool window_streaming(const struct send_window *w);
/* Batches held in the ring (posted, not confirmed by every live
 * replica). */
unsigned window_inflight(const struct send_window *w);
/* Batches posted to replica i and not confirmed by it. */
unsigned window_inflight_of(const struct send_window *w, unsigned i);
/* Whether more waits to go to replica i: a batch not posted to it yet, or
 * bytes in the open batch. */
bool window_more_waiting(const struct send_window *w, unsigned i);
/* The oldest batch posted to replica i and not confirmed, or NULL. */
const struct window_batch *window_oldest_of(const struct send_window *w,
					    unsigned i);
const struct window_batch *window_batch(const struct send_window *w,
					uint32_t seq);
/* Input bytes committed under the rule. */
uint64_t window_committed_input(const struct send_window *w);
/* Input bytes replica i's log is known to hold. */
uint64_t window_replica_input(const struct send_window *w, unsigned i);

/* ---- what the window is at ---- */

enum window_state window_state(const struct send_window *w);
enum window_error window_error(const struct send_window *w);
/* Batches in flight to one replica at most (its credits). */
uint16_t window_depth(const struct send_window *w);
/* Batches the ring holds. */
uint32_t window_slots(const struct send_window *w);
/* The largest batch. */
uint32_t window_batch_max(const struct send_window *w);
/* Bytes in the open batch, not yet posted. */
uint32_t window_fill(const struct send_window *w);
const struct quorum *window_quorum(const struct send_window *w);
/* The ring the batches live in (*len bytes), to register; NULL until
 * window_connected sized it. */
uint8_t *window_ring(const struct send_window *w, size_t *len);
/* Where batch b's bytes are in the ring. */
size_t window_ring_offset(const struct send_window *w,
			  const struct window_batch *b);
/* Batch seq's credit slot, 0 to depth - 1: no two batches in flight to one
 * replica share one, so a replica keeps per-batch state (its post time, a
 * receiver's staging slot, APM's words) by it. */
uint32_t window_slot_of(const struct send_window *w, uint32_t seq);
/* Log positions: where this stream began, where the open batch goes, the
 * end of the smallest replica's log. */
uint64_t window_first_offset(const struct send_window *w);
uint64_t window_next_offset(const struct send_window *w);
uint64_t window_end_offset(const struct send_window *w);
/* The ring is full and a replica that is not active (lost) may be what
 * holds it. */
bool window_ring_pinned(const struct send_window *w);

#endif
