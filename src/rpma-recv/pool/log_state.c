#include "pool/log_state.h"

#include <string.h>
#include <xxhash.h>

/* Slot layout, little-endian: magic, seq, base, uuid, the switch (src,
 * len, chunk, done), the content's number, then zeros, and the checksum
 * of everything before it in the slot's last 8 bytes. */
#define MAGIC "RPMALOG1"
#define AT_SEQ 8
#define AT_BASE 16
#define AT_UUID 24
#define AT_SWITCH 40
#define AT_CONTENT 72
#define AT_SUM (RECV_LOG_STATE_SLOT - 8)

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static bool slot_valid(const uint8_t *s, const uint8_t uuid[16])
{
	return !memcmp(s, MAGIC, 8) && !memcmp(s + AT_UUID, uuid, 16) &&
	       get_le64(s + AT_SUM) == XXH3_64bits(s, AT_SUM);
}

/* The valid slot with the higher sequence number, or -1. */
static int newest_slot(const uint8_t *page, const uint8_t uuid[16])
{
	int best = -1;
	uint64_t best_seq = 0;
	for (unsigned i = 0; i < RECV_LOG_STATE_SLOTS; i++) {
		const uint8_t *s = page + i * RECV_LOG_STATE_SLOT;
		if (!slot_valid(s, uuid))
			continue;
		uint64_t seq = get_le64(s + AT_SEQ);
		if (best < 0 || seq > best_seq) {
			best = (int)i;
			best_seq = seq;
		}
	}
	return best;
}

bool log_state_decode(const uint8_t *page, const uint8_t uuid[16],
		      struct log_state *out)
{
	memset(out, 0, sizeof(*out));
	int i = newest_slot(page, uuid);
	if (i < 0)
		return false;
	const uint8_t *s = page + (unsigned)i * RECV_LOG_STATE_SLOT;
	out->seq = get_le64(s + AT_SEQ);
	out->base = get_le64(s + AT_BASE);
	out->sw.src = get_le64(s + AT_SWITCH);
	out->sw.len = get_le64(s + AT_SWITCH + 8);
	out->sw.chunk = get_le64(s + AT_SWITCH + 16);
	out->sw.done = get_le64(s + AT_SWITCH + 24);
	out->content = get_le64(s + AT_CONTENT);
	return true;
}

void log_state_encode(const struct log_state *next, const uint8_t uuid[16],
		      uint8_t slot[RECV_LOG_STATE_SLOT], unsigned *slot_index)
{
	memset(slot, 0, RECV_LOG_STATE_SLOT);
	memcpy(slot, MAGIC, 8);
	put_le64(slot + AT_SEQ, next->seq);
	put_le64(slot + AT_BASE, next->base);
	memcpy(slot + AT_UUID, uuid, 16);
	put_le64(slot + AT_SWITCH, next->sw.src);
	put_le64(slot + AT_SWITCH + 8, next->sw.len);
	put_le64(slot + AT_SWITCH + 16, next->sw.chunk);
	put_le64(slot + AT_SWITCH + 24, next->sw.done);
	put_le64(slot + AT_CONTENT, next->content);
	put_le64(slot + AT_SUM, XXH3_64bits(slot, AT_SUM));
	/* Alternate by sequence number: the current record (seq - 1) is in
	 * the other slot. */
	*slot_index = (unsigned)(next->seq % RECV_LOG_STATE_SLOTS);
}
