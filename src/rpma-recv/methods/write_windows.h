/* A writer's reach into its log: two type-2 memory windows over the
 * unused tail of the data range, [head, end), bound to the writer's queue
 * pair. Each commit written with the newest key moves the other window up
 * to the new head (its old key dies), so a committed byte leaves the
 * writer's reach within two moves, and a queue pair that is not the
 * writer's reaches nothing. The session decides when (sender/session.c);
 * this module posts the bindings, on the writer's queue pair, before the
 * reply that hands out the key. */
#ifndef RECV_WRITE_WINDOWS_H
#define RECV_WRITE_WINDOWS_H

#include <stdint.h>

struct rs_conn;
struct rs_error;
struct rs_mr;
struct rs_peer;
struct recv_write_windows;

#define RECV_WINDOW_REGIONS_MAX 16

/* What the windows are bound to: the pool's data range [start, end)
 * (absolute file offsets), registered as n regions, region j from
 * start + j * step to end. A window over [head, end) is bound to the last
 * region that begins at or before head: on a device that keeps no window
 * to its range (Soft-RoCE) the region's range is what it keeps the
 * window's accesses to. One region, the whole range, elsewhere. */
struct recv_window_regions {
	const struct rs_mr *mr[RECV_WINDOW_REGIONS_MAX];
	unsigned n;
	uint64_t start, end, step;
};

/* Two windows on peer over regions (copied). 0 or a negative rs_errc. */
int recv_write_windows_new(struct rs_peer *peer,
			   const struct recv_window_regions *regions,
			   struct recv_write_windows **out,
			   struct rs_error *err);
void recv_write_windows_delete(struct recv_write_windows **w);

/* Binds the window not holding the newest key to [head, end) on c: its
 * key, now the newest, in *key, and in *reach where its accesses really
 * begin (head, or its region's start). The other keeps working. The
 * binding goes out with c's next post: the reply naming the key. 0 or
 * RS_E_LOST. */
int recv_write_windows_move(struct recv_write_windows *w, struct rs_conn *c,
			    uint64_t head, uint32_t *key, uint64_t *reach);
/* As move, and the other window's key stops working: for a writer with
 * nothing in flight whose head moved back (a new pool, a replacement). */
int recv_write_windows_reset(struct recv_write_windows *w, struct rs_conn *c,
			     uint64_t head, uint32_t *key, uint64_t *reach);

#endif
