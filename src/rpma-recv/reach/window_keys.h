/* A windowed writer's keys as its session sees them (reach/write_windows.h
 * binds them): the newest handed out and the one before, which batches
 * sent before the writer heard of the newest still use (the rule both
 * ends follow: lib/session's window_keys.h); where and when
 * each window was bound; and how far behind the head, and how long, a
 * window still covered committed bytes before it moved past them (the
 * bound the man page gives, measured). Pure: no connection. */
#ifndef RECV_WINDOW_KEYS_H
#define RECV_WINDOW_KEYS_H

#include "session/window_keys.h"

#include <stdbool.h>
#include <stdint.h>

struct recv_window_keys {
	struct rs_window_keys ids;	   /* the newest and the one before */
	uint64_t newest_head, before_head; /* where each reaches from */
	uint64_t newest_at, before_at;	   /* the log's head when bound */
	uint64_t newest_ns, before_ns;
	uint64_t reach_bytes_max, reach_ns_max;
};

/* Whether a writer may name key: the newest or the one before
 * (rs_window_keys_hold). */
bool recv_window_keys_holds(const struct recv_window_keys *k, uint32_t key);

/* A window was bound at now with key, reaching from reach (the head then,
 * or where the device really lets it begin): it is the newest. After a
 * move the newest becomes the one before (the window that moved covered
 * what was committed past its reach since it was bound); after a reset
 * none is. head is the log's head now. */
void recv_window_keys_bound(struct recv_window_keys *k, uint32_t key,
			    bool reset, uint64_t reach, uint64_t head,
			    uint64_t now);

/* Whether moving the window of the key before up to head would take
 * committed bytes out of reach: it was bound below head. A paused writer
 * names its newest key once; a second keepalive finds nothing to move
 * (else every answer's new key would ask for the next, without end). */
bool recv_window_keys_behind(const struct recv_window_keys *k, uint64_t head);

/* The windows go (the session ends) with the log's head at head. */
void recv_window_keys_end(struct recv_window_keys *k, uint64_t head,
			  uint64_t now);

#endif
