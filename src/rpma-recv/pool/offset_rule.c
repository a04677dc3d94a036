#include "pool/offset_rule.h"

#include <string.h>
#include <xxhash.h>

enum recv_offset_rule recv_offset_check(uint64_t word, uint64_t start,
					uint64_t end, uint64_t accepted)
{
	if (word > end)
		return RECV_OFFSET_PAST_END;
	if (word < start)
		return RECV_OFFSET_BEFORE_START;
	if (word < accepted)
		return RECV_OFFSET_BACKWARDS;
	return RECV_OFFSET_OK;
}

const char *recv_offset_rule_text(enum recv_offset_rule r)
{
	switch (r) {
	case RECV_OFFSET_PAST_END:
		return "past the data range's end";
	case RECV_OFFSET_BEFORE_START:
		return "before the data range's start";
	case RECV_OFFSET_BACKWARDS:
		return "below the offset already committed";
	case RECV_OFFSET_WHILE_SEALED:
		return "moved while the log was sealed for its rotation";
	default:
		return "within the rules";
	}
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The checksum covers the value, the pool's UUID (a record another pool
 * left on a reused device does not count) and the epoch. */
static uint64_t floor_sum(const uint8_t value[8], const uint8_t uuid[16],
			  uint64_t epoch)
{
	uint8_t all[32];
	memcpy(all, value, 8);
	memcpy(all + 8, uuid, 16);
	put_le64(all + 24, epoch);
	return XXH3_64bits(all, sizeof(all));
}

bool recv_offset_floor_fits(uint64_t start)
{
	return start >= RECV_OFFSET_FLOOR_AT + RECV_OFFSET_FLOOR_SIZE;
}

void recv_offset_floor_encode(uint64_t value, const uint8_t uuid[16],
			      uint64_t epoch,
			      uint8_t out[RECV_OFFSET_FLOOR_SIZE])
{
	put_le64(out, value);
	put_le64(out + 8, floor_sum(out, uuid, epoch));
}

bool recv_offset_floor_decode(const uint8_t rec[RECV_OFFSET_FLOOR_SIZE],
			      const uint8_t uuid[16], uint64_t epoch,
			      uint64_t *value)
{
	if (get_le64(rec + 8) != floor_sum(rec, uuid, epoch))
		return false;
	*value = get_le64(rec);
	return true;
}

uint64_t recv_offset_floor_epoch(const uint8_t *base, uint64_t start,
				 const uint8_t uuid[16])
{
	struct log_state st;
	if (start < RECV_LOG_STATE_END ||
	    !log_state_decode(base + RECV_LOG_STATE_OFFSET, uuid, &st))
		return 0;
	return st.seq;
}

uint64_t recv_offset_at_open(uint64_t word, uint64_t start, uint64_t end,
			     bool has_floor, uint64_t floor,
			     enum recv_offset_rule *broke)
{
	bool floor_ok = has_floor && floor >= start && floor <= end;
	*broke = recv_offset_check(word, start, end, floor_ok ? floor : start);
	if (*broke == RECV_OFFSET_OK || !floor_ok)
		return word;
	return floor;
}
