/* How late the machine runs a thread that wants to run: a thread of its
 * own sleeps a few milliseconds at a time and notes how much later than
 * asked it woke. A commit's latency counts such delays wherever they hit
 * (the receiver's threads, the kernel's RDMA work, the load tool's loop);
 * a delay this thread saw too is the machine's (a busy box, or a virtual
 * CPU the host did not run), not any one program's. */
#ifndef LOAD_STALL_H
#define LOAD_STALL_H

#include <stdint.h>

#define LOAD_STALL_SLEEP_NS 5000000ull /* each sleep asked for */
#define LOAD_STALL_LONG_NS 5000000ull  /* a wake this late counts as long */

struct load_stalls {
	uint64_t longest_ns; /* the latest wake, beyond the sleep asked */
	uint64_t long_wakes, wakes;
};

struct load_stall_probe;

/* Starts the probe's thread: NULL when it cannot (said on stderr). */
struct load_stall_probe *load_stall_start(void);
/* The figures since the last call, then starts them again. */
void load_stall_take(struct load_stall_probe *p, struct load_stalls *out);
/* Stops the thread; p may be NULL. */
void load_stall_stop(struct load_stall_probe *p);

#endif
