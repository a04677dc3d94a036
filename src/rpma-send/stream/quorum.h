/* Which part of a replicated stream is committed. One stream goes to n
 * replicas, every batch at the same offset of each replica's log (they all
 * start from the same committed length); a byte is committed once k of
 * the replicas still counted have confirmed it persistent (k = n unless
 * --quorum says fewer). No RDMA and no ring here: the sender reports what
 * each replica confirmed and when its link comes and goes, and asks what
 * is committed and what the ring must still hold.
 *
 *   ACTIVE --link lost--> LOST --reconnected, gap in the ring--> CATCHING_UP
 *   CATCHING_UP --confirmed what the others had at the reconnect--> ACTIVE
 *   CATCHING_UP --link lost--> LOST
 *   LOST --reconnected, gap no longer in the ring--> DROPPED
 *   any --given up--> DROPPED, for good
 *
 * A replica that is not DROPPED counts toward k with what it confirmed,
 * connected or not: its log keeps those bytes. */
#ifndef SEND_QUORUM_H
#define SEND_QUORUM_H

#include "common/send_config.h"

#include <stdbool.h>
#include <stdint.h>

enum replica_state {
	REPLICA_ACTIVE,	     /* connected, streaming */
	REPLICA_LOST,	     /* link lost, may come back (--retry) */
	REPLICA_CATCHING_UP, /* back, being resent its gap from the ring */
	REPLICA_DROPPED,     /* given up: never counts or rejoins again */
};

const char *quorum_state_name(enum replica_state s);

struct quorum_replica {
	enum replica_state state;
	uint64_t confirmed;   /* its log's persistent length, as last known */
	uint64_t catch_up_to; /* CATCHING_UP: ACTIVE once confirmed is here */
};

struct quorum {
	unsigned n, k;
	uint64_t committed; /* the k-th highest confirmed; never goes back */
	struct quorum_replica replicas[SEND_REPLICAS_MAX];
};

/* n replicas, all ACTIVE with their logs at start_offset (the committed
 * length they share); committed starts there. RS_E_INVAL, q untouched,
 * unless 1 <= k <= n <= SEND_REPLICAS_MAX. */
int quorum_init(struct quorum *q, unsigned n, unsigned k,
		uint64_t start_offset);

/* Replica i confirmed its log persistent up to offset. A CATCHING_UP
 * replica that reaches its catch_up_to becomes ACTIVE. 0 when counted
 * or harmlessly ignored (the same offset again; a DROPPED replica's late
 * confirmation); nothing changed, RS_E_INVAL for a bad i, RS_E_MALFORMED
 * for an offset below what i confirmed before: its log went backwards,
 * the caller should drop it. */
int quorum_confirmed(struct quorum *q, unsigned i, uint64_t offset);

/* The link to replica i is lost: LOST, its confirmed offset still counts.
 * A DROPPED replica stays DROPPED. */
void quorum_lost(struct quorum *q, unsigned i);

/* Replica i is connected again and its log ends at remote_offset; the
 * sender's ring still holds [ring_oldest_offset, ...). DROPPED when its
 * log is shorter than it confirmed (it lost persistent bytes) or when
 * remote_offset < ring_oldest_offset (its gap cannot be resent); else
 * its log counts as confirmed to remote_offset and it is CATCHING_UP
 * until it confirms what the other replicas had confirmed now, or ACTIVE
 * at once when it has that already. Returns the new state; a DROPPED
 * replica stays DROPPED. The caller checks first that remote_offset is
 * one it sent (a batch boundary, as window_reconnected checks) and
 * resends from there. */
enum replica_state quorum_rejoin(struct quorum *q, unsigned i,
				 uint64_t remote_offset,
				 uint64_t ring_oldest_offset);

/* Gives replica i up (retries exhausted, a protocol error): DROPPED. */
void quorum_drop(struct quorum *q, unsigned i);

/* Drops LOST replicas whose confirmed offset is below floor_needed,
 * lowest first, while more than k replicas remain: a lost replica pins
 * the ring (see quorum_ring_floor), and when the ring is full the caller
 * may prefer streaming on to waiting for it. Never drops the last ones
 * the quorum needs (waiting for those is the only way on) nor a connected
 * replica. Returns how many were dropped. */
unsigned quorum_drop_laggards(struct quorum *q, uint64_t floor_needed);

/* The offset committed under the rule: the k-th highest confirmed among
 * replicas not DROPPED, at the highest it ever was (dropping a fast
 * replica does not uncommit what it helped commit). Once not viable it
 * stays where it was. */
uint64_t quorum_committed(const struct quorum *q);

/* At least k replicas are not DROPPED. When false the stream must stop;
 * quorum_committed still says what was committed. */
bool quorum_viable(const struct quorum *q);

/* The lowest confirmed offset among replicas not DROPPED: what the ring
 * must still hold so that a live replica can be resent its gap. The ring
 * frees below min(quorum_committed, this), which is this while viable. A
 * LOST replica holds this still until it rejoins or is dropped: the price
 * of being able to catch it up (see quorum_drop_laggards). A connected
 * one holds it too, as its batches in flight are read from the ring: the
 * slowest live replica sets the pace even when k < n. With no live
 * replica, quorum_committed. */
uint64_t quorum_ring_floor(const struct quorum *q);

unsigned quorum_needed(const struct quorum *q);	      /* k */
unsigned quorum_active_count(const struct quorum *q); /* ACTIVE */
unsigned quorum_live_count(const struct quorum *q);   /* not DROPPED */

/* Replicas whose log is known to hold [start, offset): at the end,
 * quorum_count_at(q, quorum_committed(q)) < n means the stream is
 * committed on fewer replicas than listed (exit 7). */
unsigned quorum_count_at(const struct quorum *q, uint64_t offset);

/* For the closing report: replica i's state and its log's length as last
 * known (for a replica dropped at a reconnect, the length its log had
 * then). A bad i: REPLICA_DROPPED and 0. */
enum replica_state quorum_replica_state(const struct quorum *q, unsigned i);
uint64_t quorum_replica_offset(const struct quorum *q, unsigned i);

#endif
