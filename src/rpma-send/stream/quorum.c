#include "stream/quorum.h"

#include "error.h"

#include <string.h>

const char *quorum_state_name(enum replica_state s)
{
	static const char *const names[] = {
	    [REPLICA_ACTIVE] = "active",
	    [REPLICA_LOST] = "lost",
	    [REPLICA_CATCHING_UP] = "catching up",
	    [REPLICA_DROPPED] = "dropped",
	};
	return (unsigned)s <= REPLICA_DROPPED ? names[s] : "unknown";
}

static bool live(const struct quorum_replica *r)
{
	return r->state != REPLICA_DROPPED;
}

/* Raises committed to the highest offset that at least k live replicas
 * have confirmed, if that is higher: the k-th highest confirmed. */
static void commit_update(struct quorum *q)
{
	for (unsigned i = 0; i < q->n; i++) {
		const struct quorum_replica *r = &q->replicas[i];
		if (!live(r) || r->confirmed <= q->committed)
			continue;
		unsigned holders = 0;
		for (unsigned j = 0; j < q->n; j++)
			if (live(&q->replicas[j]) &&
			    q->replicas[j].confirmed >= r->confirmed)
				holders++;
		if (holders >= q->k)
			q->committed = r->confirmed;
	}
}

int quorum_init(struct quorum *q, unsigned n, unsigned k, uint64_t start_offset)
{
	if (n > SEND_REPLICAS_MAX || k < 1 || k > n)
		return RS_E_INVAL;
	memset(q, 0, sizeof(*q));
	q->n = n;
	q->k = k;
	q->committed = start_offset;
	for (unsigned i = 0; i < n; i++) {
		q->replicas[i].state = REPLICA_ACTIVE;
		q->replicas[i].confirmed = start_offset;
	}
	return 0;
}

int quorum_confirmed(struct quorum *q, unsigned i, uint64_t offset)
{
	if (i >= q->n)
		return RS_E_INVAL;
	struct quorum_replica *r = &q->replicas[i];
	/* Late news from a replica given up on changes nothing. */
	if (!live(r))
		return 0;
	if (offset < r->confirmed)
		return RS_E_MALFORMED;
	r->confirmed = offset;
	if (r->state == REPLICA_CATCHING_UP && offset >= r->catch_up_to)
		r->state = REPLICA_ACTIVE;
	commit_update(q);
	return 0;
}

void quorum_lost(struct quorum *q, unsigned i)
{
	if (i < q->n && live(&q->replicas[i]))
		q->replicas[i].state = REPLICA_LOST;
}

/* The highest offset a live replica other than i confirmed. */
static uint64_t others_confirmed(const struct quorum *q, unsigned i)
{
	uint64_t high = 0;
	for (unsigned j = 0; j < q->n; j++) {
		const struct quorum_replica *r = &q->replicas[j];
		if (j != i && live(r) && r->confirmed > high)
			high = r->confirmed;
	}
	return high;
}

enum replica_state quorum_rejoin(struct quorum *q, unsigned i,
				 uint64_t remote_offset,
				 uint64_t ring_oldest_offset)
{
	if (i >= q->n)
		return REPLICA_DROPPED;
	struct quorum_replica *r = &q->replicas[i];
	if (!live(r))
		return REPLICA_DROPPED;
	/* Its log holds remote_offset bytes, whatever happens next: the
	 * closing report says so. Shorter than it confirmed: not the log
	 * that confirmed, it counts no more. Behind the ring: its gap is
	 * gone, it can never be whole again. */
	bool shrunk = remote_offset < r->confirmed;
	r->confirmed = remote_offset;
	if (shrunk || remote_offset < ring_oldest_offset) {
		r->state = REPLICA_DROPPED;
		return r->state;
	}
	r->catch_up_to = others_confirmed(q, i);
	r->state = remote_offset >= r->catch_up_to ? REPLICA_ACTIVE
						   : REPLICA_CATCHING_UP;
	commit_update(q);
	return r->state;
}

void quorum_drop(struct quorum *q, unsigned i)
{
	if (i < q->n)
		q->replicas[i].state = REPLICA_DROPPED;
}

/* The LOST replica with the lowest confirmed offset below floor_needed,
 * or -1. */
static int lowest_lost(const struct quorum *q, uint64_t floor_needed)
{
	int low = -1;
	for (unsigned i = 0; i < q->n; i++) {
		const struct quorum_replica *r = &q->replicas[i];
		if (r->state == REPLICA_LOST && r->confirmed < floor_needed &&
		    (low < 0 || r->confirmed < q->replicas[low].confirmed))
			low = (int)i;
	}
	return low;
}

unsigned quorum_drop_laggards(struct quorum *q, uint64_t floor_needed)
{
	unsigned dropped = 0;
	int i;
	while (quorum_live_count(q) > q->k &&
	       (i = lowest_lost(q, floor_needed)) >= 0) {
		q->replicas[i].state = REPLICA_DROPPED;
		dropped++;
	}
	return dropped;
}

uint64_t quorum_committed(const struct quorum *q)
{
	return q->committed;
}

bool quorum_viable(const struct quorum *q)
{
	return quorum_live_count(q) >= q->k;
}

uint64_t quorum_ring_floor(const struct quorum *q)
{
	uint64_t floor = UINT64_MAX;
	for (unsigned i = 0; i < q->n; i++) {
		const struct quorum_replica *r = &q->replicas[i];
		if (live(r) && r->confirmed < floor)
			floor = r->confirmed;
	}
	return floor == UINT64_MAX ? q->committed : floor;
}

unsigned quorum_needed(const struct quorum *q)
{
	return q->k;
}

unsigned quorum_active_count(const struct quorum *q)
{
	unsigned n = 0;
	for (unsigned i = 0; i < q->n; i++)
		n += q->replicas[i].state == REPLICA_ACTIVE;
	return n;
}

unsigned quorum_live_count(const struct quorum *q)
{
	unsigned n = 0;
	for (unsigned i = 0; i < q->n; i++)
		n += live(&q->replicas[i]);
	return n;
}

unsigned quorum_count_at(const struct quorum *q, uint64_t offset)
{
	unsigned n = 0;
	for (unsigned i = 0; i < q->n; i++)
		n += q->replicas[i].confirmed >= offset;
	return n;
}

enum replica_state quorum_replica_state(const struct quorum *q, unsigned i)
{
	return i < q->n ? q->replicas[i].state : REPLICA_DROPPED;
}

uint64_t quorum_replica_offset(const struct quorum *q, unsigned i)
{
	return i < q->n ? q->replicas[i].confirmed : 0;
}
