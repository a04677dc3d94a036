/* How much of a log's tail a gpspm writer's windows reach: the plan, with
 * no verbs (reach/write_windows.c registers what it says). A writer's
 * windows are bound to a region registered over part of the unused tail,
 * from the head's page, not to the whole data range: an idle writer pins
 * a little of its pool, not all of it, and on a device that keeps no
 * window to its range (Soft-RoCE) its key reaches back at most to where
 * that region begins. A region is registered again further on when the
 * head leaves less than half a span in it, or less than a batch asks. */
#ifndef RECV_WRITE_REACH_H
#define RECV_WRITE_REACH_H

#include <stdbool.h>
#include <stdint.h>

/* The smallest span: an idle tail -F writer's cost in pinned memory. */
#define RECV_REACH_FLOOR (128u << 10)

struct recv_write_reach {
	uint64_t start, end; /* the log's data range, file offsets */
	uint32_t credits;    /* batches the writer may have in flight */
	uint64_t batch_max;  /* the largest batch it wrote or asked room for */
};

/* A plan for the data range [start, end) and a writer of credits. */
struct recv_write_reach recv_write_reach_init(uint64_t start, uint64_t end,
					      uint32_t credits);
/* A batch of length bytes was written, or room for it asked: later
 * regions are long enough for the writer to keep its credits of them in
 * flight without waiting for a key (reach/write_reach.c says why). */
void recv_write_reach_note(struct recv_write_reach *p, uint64_t length);
/* Bytes a region registered now spans, at most the data range. */
uint64_t recv_write_reach_span(const struct recv_write_reach *p);
/* Whether the region [from, to) serves a window from head: it holds the
 * head, and half a span past it, need bytes past it, or the range's end. */
bool recv_write_reach_serves(const struct recv_write_reach *p, uint64_t from,
			     uint64_t to, uint64_t head, uint64_t need);
/* The region to register for a window from head ([start, end) holds it)
 * with need bytes of room: [*from, *to). */
void recv_write_reach_region(const struct recv_write_reach *p, uint64_t head,
			     uint64_t need, uint64_t *from, uint64_t *to);

#endif
