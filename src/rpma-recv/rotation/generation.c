#include "rotation/generation.h"

#include "proto/message.h"
#include "rotation/rotation.h"

/* A replacement starts at least this far from the data range's start, so
 * that the switch moves it in few chunks (a chunk is at most that gap). */
#define GAP_MAX (64ull << 20)

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~7ull;
}

/* Beside the old content, leaving a gap of an eighth of the pool (at most
 * GAP_MAX) unless the replacement then would not fit. 0: no room. */
static uint64_t beside(const struct recv_pmem_target *t, uint64_t expected)
{
	uint64_t size = t->end - t->start;
	uint64_t tight = align8(recv_pmem_target_write_offset(t));
	uint64_t gap = size / 8 < GAP_MAX ? size / 8 : GAP_MAX;
	uint64_t wide = tight - t->start < gap ? t->start + gap : tight;
	if (wide < t->end && (!expected || t->end - wide >= expected))
		return wide;
	if (tight < t->end && (!expected || t->end - tight >= expected))
		return tight;
	return 0;
}

uint8_t recv_generation_place(struct recv_generation *g,
			      const struct recv_pmem_target *t,
			      struct recv_rotation *rot, uint64_t expected,
			      uint64_t *room)
{
	uint64_t size = t->end - t->start;
	uint64_t used = recv_pmem_target_write_offset(t) - t->start;
	uint64_t at = used ? beside(t, expected) : t->start;
	/* A pipe (size not known) gets the whole pool where the old content
	 * can wait in the archive. */
	bool seal = used && recv_rotation_enabled(rot) && (!at || !expected);
	*room = at ? t->end - at : t->end - align8(t->start + used);
	if (expected > size || (!at && !seal))
		return RS_MSG_NO_ROOM;
	if (seal) {
		uint64_t base;
		uint8_t status = recv_rotation_rebase(
		    rot, recv_pmem_target_write_offset(t), &base);
		if (status != RS_MSG_OK)
			return status;
		at = t->start;
	}
	*g = (struct recv_generation){.active = true, .at = at, .end = at};
	*room = t->end - at;
	return RS_MSG_OK;
}

uint64_t recv_generation_head(const struct recv_generation *g,
			      const struct recv_pmem_target *t)
{
	return g && g->active ? g->end : recv_pmem_target_write_offset(t);
}
