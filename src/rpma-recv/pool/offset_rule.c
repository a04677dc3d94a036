#include "pool/offset_rule.h"

#include <endian.h>
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

uint64_t recv_offset_load(const uint8_t *p)
{
	return le64toh(__atomic_load_n((const uint64_t *)(const void *)p,
				       __ATOMIC_ACQUIRE));
}

/* The checksum covers the value, the sequence number and the slot's
 * number, the pool's UUID (a record another pool left on a reused device
 * does not count) and the epoch. */
static uint64_t slot_sum(uint64_t value, uint64_t seq, unsigned slot,
			 const uint8_t uuid[16], uint64_t epoch)
{
	uint8_t all[48];
	put_le64(all, value);
	put_le64(all + 8, seq);
	put_le64(all + 16, slot);
	memcpy(all + 24, uuid, 16);
	put_le64(all + 40, epoch);
	return XXH3_64bits(all, sizeof(all));
}

/* The record of releases before 0.5.0: the value, and a checksum of it,
 * the UUID and the epoch. */
static uint64_t older_sum(uint64_t value, const uint8_t uuid[16],
			  uint64_t epoch)
{
	uint8_t all[32];
	put_le64(all, value);
	memcpy(all + 8, uuid, 16);
	put_le64(all + 24, epoch);
	return XXH3_64bits(all, sizeof(all));
}

bool recv_offset_floor_fits(uint64_t start)
{
	return start >= RECV_OFFSET_FLOOR_AT + RECV_OFFSET_FLOOR_SIZE;
}

void recv_offset_floor_read(const uint8_t *rec, const uint8_t uuid[16],
			    uint64_t epoch, struct recv_offset_floor *out)
{
	*out = (struct recv_offset_floor){0};
	for (unsigned i = 0; i < 2; i++) {
		const uint8_t *p = rec + i * RECV_OFFSET_FLOOR_SLOT;
		uint64_t value = recv_offset_load(p),
			 seq = recv_offset_load(p + 8);
		if (recv_offset_load(p + 16) !=
			slot_sum(value, seq, i, uuid, epoch) ||
		    (out->valid && seq <= out->seq))
			continue;
		*out = (struct recv_offset_floor){
		    .valid = true, .value = value, .seq = seq, .slot = i};
	}
	if (out->valid)
		return;
	uint64_t value = recv_offset_load(rec);
	if (recv_offset_load(rec + 8) == older_sum(value, uuid, epoch))
		*out =
		    (struct recv_offset_floor){.valid = true, .value = value};
}

unsigned recv_offset_floor_encode(const struct recv_offset_floor *now,
				  uint64_t value, const uint8_t uuid[16],
				  uint64_t epoch,
				  uint8_t out[RECV_OFFSET_FLOOR_SLOT])
{
	/* The older record lies where slot 0 begins: slot 1 first. */
	unsigned slot = now->valid && now->seq ? now->slot ^ 1u : 1u;
	uint64_t seq = now->valid ? now->seq + 1 : 1;
	memset(out, 0, RECV_OFFSET_FLOOR_SLOT);
	put_le64(out, value);
	put_le64(out + 8, seq);
	put_le64(out + 16, slot_sum(value, seq, slot, uuid, epoch));
	return slot;
}

bool recv_offset_floor_decode(const uint8_t *rec, const uint8_t uuid[16],
			      uint64_t epoch, uint64_t *value)
{
	struct recv_offset_floor f;
	recv_offset_floor_read(rec, uuid, epoch, &f);
	if (f.valid)
		*value = f.value;
	return f.valid;
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
