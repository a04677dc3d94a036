/* The sender's batch window: a ring of batch slots, each batch numbered and
 * placed at its offset in the remote log, kept until the receiver confirms
 * that it is committed, so that after a lost connection exactly the
 * uncommitted tail is sent again. No RDMA here: the window posts batches
 * through its link (the real session in rpma-send, a fake in the unit
 * tests) and is driven by events:
 *
 *   CONNECTING --connected--> STREAMING --input ended--> DRAINING
 *   STREAMING, DRAINING --link lost--> RECONNECTING
 *   RECONNECTING --connected again: resend the tail--> STREAMING/DRAINING
 *   DRAINING --last confirmation--> DONE; any --fatal error--> DONE */
#ifndef SEND_WINDOW_H
#define SEND_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum window_state {
	WINDOW_CONNECTING,   /* no grant yet */
	WINDOW_STREAMING,    /* taking input, batches in flight */
	WINDOW_DRAINING,     /* input over: the last confirmations are due */
	WINDOW_RECONNECTING, /* the link is lost: in flight is not confirmed */
	WINDOW_DONE,
};

const char *window_state_name(enum window_state s);

struct window_batch {
	uint8_t *data;
	uint32_t seq;
	uint64_t offset; /* where it goes in the remote log */
	uint32_t length;
	uint64_t posted_ns; /* for the commit latency */
};

struct window_link {
	void *ctx;
	/* Writes b and asks for its commit. Non-zero: the link is lost. */
	int (*post)(void *ctx, struct window_batch *b);
	/* b is committed on the receiver. */
	void (*committed)(void *ctx, const struct window_batch *b);
};

/* Why a window ended badly. */
enum window_error {
	WINDOW_OK = 0,
	WINDOW_OUT_OF_ORDER, /* a confirmation for the wrong batch */
	WINDOW_DIVERGED,     /* after a reconnect the log ends mid-batch */
	WINDOW_NO_MEMORY,
};

struct send_window {
	enum window_state state;
	enum window_state resume_state; /* where RECONNECTING goes back */
	enum window_error error;
	struct window_link link;
	uint16_t depth;
	uint32_t batch_max;
	uint8_t *ring; /* depth batches of batch_max bytes */
	size_t ring_len;
	struct window_batch *batches;
	uint32_t next_seq;	   /* the open batch (being filled) */
	uint32_t oldest_seq;	   /* oldest batch not yet committed */
	uint32_t fill;		   /* bytes in the open batch */
	uint64_t next_offset;	   /* where the open batch goes */
	uint64_t committed_offset; /* the remote log's committed end */
	uint64_t first_offset;	   /* where this stream began */
	uint64_t end_offset;	   /* the remote log's end */
};

void window_init(struct send_window *w, const struct window_link *link);
void window_fini(struct send_window *w);

/* The first grant: sizes the ring and starts streaming at write_offset.
 * Non-zero when the ring cannot be allocated. */
int window_connected(struct send_window *w, uint16_t depth, uint32_t batch_max,
		     uint64_t write_offset, uint64_t end_offset);

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

/* The receiver committed batch seq; the log now ends at remote_offset. */
void window_confirmed(struct send_window *w, uint32_t seq,
		      uint64_t remote_offset);
/* The link went down: nothing in flight is known to be committed. */
void window_lost(struct send_window *w);
/* Connected again to a log that ends at remote_offset: batches it holds
 * count as committed, the rest are posted again, in order. */
void window_reconnected(struct send_window *w, uint64_t remote_offset);
/* Stops for good (retries exhausted, a fatal error elsewhere). */
void window_stop(struct send_window *w);

unsigned window_inflight(const struct send_window *w);
uint64_t window_committed_input(const struct send_window *w);

#endif
