#include "fetch/plan.h"

uint64_t fetch_start_at(const struct fetch_start *s, const struct fetch_log *l)
{
	return s->at_end ? l->end : s->from;
}

enum fetch_verdict fetch_check(const struct fetch_log *l, uint64_t content,
			       uint64_t pos)
{
	if (l->content != content)
		return FETCH_REPLACED;
	if (pos < l->first)
		return FETCH_GONE;
	if (pos > l->end)
		return FETCH_SHORT;
	return FETCH_GO;
}

bool fetch_from_pool(const struct fetch_log *l, const struct read_prefix *r,
		     uint64_t pos, uint64_t len)
{
	return l->base == r->base && read_prefix_covers(r, pos, len);
}

uint32_t fetch_chunk_len(const struct fetch_log *l, uint64_t pos, uint64_t end,
			 uint32_t chunk)
{
	uint64_t stop = end;
	if (pos < l->base && l->base < stop)
		stop = l->base; /* the archive's part, then the pool's */
	uint64_t n = stop > pos ? stop - pos : 0;
	return n < chunk ? (uint32_t)n : chunk;
}

bool fetch_still_stands(const struct fetch_log *before,
			const struct fetch_log *after)
{
	return before->base == after->base && before->content == after->content;
}
