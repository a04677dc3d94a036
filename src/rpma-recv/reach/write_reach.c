#include "reach/write_reach.h"

#define REACH_PAGE 4096u

struct recv_write_reach recv_write_reach_init(uint64_t start, uint64_t end,
					      uint32_t credits)
{
	return (struct recv_write_reach){
	    .start = start, .end = end, .credits = credits ? credits : 1};
}

void recv_write_reach_note(struct recv_write_reach *p, uint64_t length)
{
	if (length > p->batch_max)
		p->batch_max = length;
}

uint64_t recv_write_reach_span(const struct recv_write_reach *p)
{
	uint64_t range = p->end - p->start;
	uint64_t span = RECV_REACH_FLOOR;
	/* Four times what the writer may have in flight: a key handed out
	 * at a head stays the newest until a batch written with it commits,
	 * by when the writer has written up to twice its credits past that
	 * head; a region serves while half a span is left past the head. */
	if (p->batch_max <= range && 4ull * p->credits * p->batch_max > span)
		span = 4ull * p->credits * p->batch_max;
	return span < range ? span : range;
}

static uint64_t room_wanted(const struct recv_write_reach *p, uint64_t need)
{
	uint64_t half = recv_write_reach_span(p) / 2;
	return need > half ? need : half;
}

bool recv_write_reach_serves(const struct recv_write_reach *p, uint64_t from,
			     uint64_t to, uint64_t head, uint64_t need)
{
	if (head < from || head > to || to > p->end)
		return false;
	return to == p->end || to - head >= room_wanted(p, need);
}

void recv_write_reach_region(const struct recv_write_reach *p, uint64_t head,
			     uint64_t need, uint64_t *from, uint64_t *to)
{
	uint64_t page = head & ~(uint64_t)(REACH_PAGE - 1);
	*from = page > p->start ? page : p->start;
	uint64_t want = recv_write_reach_span(p);
	if (want < head - *from + need)
		want = head - *from + need;
	*to = want < p->end - *from ? *from + want : p->end;
}
