/* How large a stream's batch window is: batches of at most the asked size
 * (or what every receiver's staging slot takes), about SHIP_INFLIGHT_BYTES
 * of them in flight unless --depth says, at most what every receiver
 * allows; and, for a regular file whose size is known when the stream
 * starts, no more buffer than it holds. A session for a few bytes would
 * otherwise allocate and register megabytes it never fills (under
 * Soft-RoCE in a guest, 8 MiB pinned take tens of ms): a cron job that
 * backs up small files pays that every time. Pure: no RDMA here. */
#ifndef SEND_WINDOW_PLAN_H
#define SEND_WINDOW_PLAN_H

#include <stdint.h>

struct window_plan {
	uint32_t batch_max; /* bytes a batch holds at most */
	uint32_t depth;	    /* batches in flight at once */
};

/* batch_size and depth as asked (depth SHIP_DEPTH_AUTO: the default),
 * batch_cap the smallest staging slot in use (UINT32_MAX: none), credits
 * the fewest any receiver allows, input_size the bytes a regular file holds
 * (0: unknown, as for a pipe or --follow). */
struct window_plan window_plan_make(uint32_t batch_size, uint32_t batch_cap,
				    uint32_t depth, uint32_t credits,
				    uint64_t input_size);

#endif
