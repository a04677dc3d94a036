#include "stream/window_plan.h"

#include "common/send_config.h"

/* Buffers are whole pages: the ring is page-aligned and registered. */
#define PLAN_PAGE 4096u

static uint64_t pages_for(uint64_t bytes)
{
	uint64_t n = (bytes + PLAN_PAGE - 1) / PLAN_PAGE * PLAN_PAGE;
	return n ? n : PLAN_PAGE;
}

struct window_plan window_plan_make(uint32_t batch_size, uint32_t batch_cap,
				    uint32_t depth, uint32_t credits,
				    uint64_t input_size)
{
	struct window_plan p = {.batch_max = batch_size, .depth = depth};
	if (p.batch_max > batch_cap)
		p.batch_max = batch_cap;
	/* A file smaller than a batch: one batch its size (a file that grows
	 * meanwhile is still read to its end, in batches of that size). */
	if (input_size && pages_for(input_size) < p.batch_max)
		p.batch_max = (uint32_t)pages_for(input_size);
	if (p.depth == SHIP_DEPTH_AUTO) {
		p.depth = SHIP_INFLIGHT_BYTES / p.batch_max;
		if (p.depth < SHIP_DEPTH_MIN)
			p.depth = SHIP_DEPTH_MIN;
		/* No more batches than the file fills, nor fewer than the
		 * least that keeps the link busy. */
		uint64_t fills = (input_size + p.batch_max - 1) / p.batch_max;
		if (input_size && fills < p.depth)
			p.depth = fills > SHIP_DEPTH_MIN ? (uint32_t)fills
							 : SHIP_DEPTH_MIN;
	}
	if (p.depth > credits)
		p.depth = credits;
	return p;
}
