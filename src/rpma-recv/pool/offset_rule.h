/* The rules a write offset stored by a one-sided writer (apm, flush) must
 * keep, and the floor record that carries the last good offset across a
 * crash. Pure: pool/pmem_target.c stores the bytes, pool/offset_word.c
 * applies the rules while writers run (see pool/offset_word.h).
 *
 * The floor is two slots in the pool's header page at RECV_OFFSET_FLOOR_AT,
 * past the receiver's record (pool/log_state.h) and below the data range,
 * so no sender reaches them, written in turn: each the offset, a sequence
 * number, and a checksum of both, the slot's number, the pool's UUID and
 * the epoch it was written in (the sequence number of the receiver's
 * record then; 0: none). The newest whole slot is the floor: one torn at
 * a power loss leaves the other. A foreign slot does not count, nor one
 * written before the record last changed (a rotation, a replacement, an
 * emptied log, by this receiver or by a release before it, which knows no
 * floor). Releases before 0.5.0 wrote one 16-byte record (the offset and
 * a checksum) where slot 0 begins: read when neither slot is whole, and
 * left alone until a slot holds a floor (slot 1 is written first). */
#ifndef RECV_OFFSET_RULE_H
#define RECV_OFFSET_RULE_H

#include "pool/log_state.h"

#include <stdbool.h>
#include <stdint.h>

#define RECV_OFFSET_FLOOR_AT RECV_LOG_STATE_END /* absolute file offset */
#define RECV_OFFSET_FLOOR_SLOT 32u /* bytes a slot spans (24 used) */
#define RECV_OFFSET_FLOOR_SIZE (2u * RECV_OFFSET_FLOOR_SLOT)

/* The little-endian u64 at p (8-byte aligned, in a mapping another party
 * may be storing to: a writer's ATOMIC WRITE, this receiver's commit, a
 * floor slot) in one load, never half of two values. */
uint64_t recv_offset_load(const uint8_t *p);

/* The rule a stored write offset breaks, or OK. */
enum recv_offset_rule {
	RECV_OFFSET_OK,
	RECV_OFFSET_PAST_END,	  /* beyond the data range's end */
	RECV_OFFSET_BEFORE_START, /* before the data range's start */
	RECV_OFFSET_BACKWARDS,	  /* below the offset accepted last */
	RECV_OFFSET_WHILE_SEALED, /* moved while a rotation sealed the log */
};

/* Which rule word breaks in a data range [start, end] whose committed end
 * was accepted at `accepted` (the start after a rotation or a
 * replacement: the generation it belongs to). */
enum recv_offset_rule recv_offset_check(uint64_t word, uint64_t start,
					uint64_t end, uint64_t accepted);
/* The rule in words, for log lines: "past the data range's end". */
const char *recv_offset_rule_text(enum recv_offset_rule r);

/* Whether a pool whose data range starts at `start` has room for a floor
 * below it. */
bool recv_offset_floor_fits(uint64_t start);
/* What the two slots hold. */
struct recv_offset_floor {
	bool valid;	/* a whole slot (or the older record) of this epoch */
	uint64_t value; /* its offset */
	uint64_t seq;	/* its sequence number (0: none, or the older record) */
	unsigned slot;	/* which slot holds it */
};

/* Reads the slots at rec (the pool's mapping at RECV_OFFSET_FLOOR_AT, read
 * with aligned 8-byte loads: a receiver may be writing one) of the pool
 * with that UUID, in epoch. */
void recv_offset_floor_read(const uint8_t *rec, const uint8_t uuid[16],
			    uint64_t epoch, struct recv_offset_floor *out);
/* Encodes the slot that stores value after `now` into out: returns its
 * slot (the one not holding the newest). */
unsigned recv_offset_floor_encode(const struct recv_offset_floor *now,
				  uint64_t value, const uint8_t uuid[16],
				  uint64_t epoch,
				  uint8_t out[RECV_OFFSET_FLOOR_SLOT]);
/* True and *value when rec holds a floor of this pool and epoch. */
bool recv_offset_floor_decode(const uint8_t *rec, const uint8_t uuid[16],
			      uint64_t epoch, uint64_t *value);

/* The epoch of a pool's header page (base: the mapped pool), whose data
 * range starts at start: the sequence number of its receiver's record, 0
 * when it has none (or no room for one). */
uint64_t recv_offset_floor_epoch(const uint8_t *base, uint64_t start,
				 const uint8_t uuid[16]);

/* What a pool's word should be when it is opened: the word itself, or,
 * when it breaks a rule against the floor (outside [start, end] or below
 * a floor inside it), the floor; *broke says which rule (OK: kept). A
 * pool without a valid floor keeps its word whatever it is: its opening
 * then fails on the layout, rather than losing a log silently. */
uint64_t recv_offset_at_open(uint64_t word, uint64_t start, uint64_t end,
			     bool has_floor, uint64_t floor,
			     enum recv_offset_rule *broke);

#endif
