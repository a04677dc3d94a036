/* A writer's reach into its log: two type-2 memory windows over the
 * unused tail of the data range, from the head, bound to the writer's
 * queue pair. Each commit written with the newest key moves the other
 * window up to the new head (its old key dies), so a committed byte leaves
 * the writer's reach within two moves, and a queue pair that is not the
 * writer's reaches nothing. The windows are bound to regions registered
 * over part of the tail only (reach/write_reach.h): a window's end is
 * where its region ends, told to the writer with its key. The session
 * decides when (sender/session.c); this module posts the bindings, on the
 * writer's queue pair, before the reply that hands out the key. */
#ifndef RECV_WRITE_WINDOWS_H
#define RECV_WRITE_WINDOWS_H

#include <stdbool.h>
#include <stdint.h>

struct rs_conn;
struct rs_error;
struct rs_peer;
struct recv_write_windows;

/* The log the windows reach into: its mapping (file offset 0) and data
 * range [start, end), the writer's credits, and whether the device keeps a
 * window's accesses inside its range (else they reach the region's). */
struct recv_write_windows_config {
	uint8_t *base;
	uint64_t start, end;
	uint32_t credits;
	bool bounded;
};

/* A binding made: its key, where its accesses really begin (the head, or
 * its region's start), and where they end. */
struct recv_window_binding {
	uint32_t key;
	uint64_t reach;
	uint64_t end;
};

/* Two windows on peer, bound to nothing yet. 0 or a negative rs_errc. */
int recv_write_windows_new(struct rs_peer *peer,
			   const struct recv_write_windows_config *cfg,
			   struct recv_write_windows **out,
			   struct rs_error *err);
/* The windows taken down, then the regions they were bound to. */
void recv_write_windows_delete(struct recv_write_windows **w);

/* Binds the window not holding the newest key from head on c, with at
 * least need bytes of room where the range has them (a region registered
 * further on if the newest one's has too little): the new binding in *b.
 * The other keeps working. The binding goes out with c's next post: the
 * reply naming the key. 0, RS_E_LOST, or the registration's rs_errc with
 * err saying why. */
int recv_write_windows_move(struct recv_write_windows *w, struct rs_conn *c,
			    uint64_t head, uint64_t need,
			    struct recv_window_binding *b,
			    struct rs_error *err);
/* As move, and the other window's key stops working: for a writer with
 * nothing in flight whose head moved back (a new pool, a replacement) or
 * who asked for room. */
int recv_write_windows_reset(struct recv_write_windows *w, struct rs_conn *c,
			     uint64_t head, uint64_t need,
			     struct recv_window_binding *b,
			     struct rs_error *err);

#endif
