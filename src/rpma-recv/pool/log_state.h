/* The receiver's own record of a log, kept in the pool's header page next
 * to libpmemlog's header: file offsets RECV_LOG_STATE_OFFSET on, which PMDK
 * leaves unused (pmempool check and pmemlog_open ignore them) and which no
 * sender can reach (a sender is given the data range only). It says where
 * the pool's content sits in the log's whole content: the log position of
 * the first byte of the data range, since rotation moved everything before
 * it into the archive (rotation/archive.h).
 *
 * Two slots, each with a sequence number and a checksum. A new record goes
 * into the slot that does not hold the current one and is persisted there,
 * so a crash at any moment leaves the old record or the new one, never a
 * torn one. A slot that is not ours (another pool's UUID, a bad checksum, a
 * zeroed page) does not count; a pool with neither slot valid starts at
 * position 0. Pure: pool/pmem_target.c reads and stores the bytes. */
#ifndef RECV_LOG_STATE_H
#define RECV_LOG_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECV_LOG_STATE_OFFSET 6144u /* absolute file offset of slot 0 */
#define RECV_LOG_STATE_SLOT 128u    /* bytes per slot */
#define RECV_LOG_STATE_SLOTS 2u
#define RECV_LOG_STATE_END                                                     \
	(RECV_LOG_STATE_OFFSET + RECV_LOG_STATE_SLOTS * RECV_LOG_STATE_SLOT)

/* A replacement being switched in (--truncate): its bytes, written beside
 * the old content at file offset src, are moved to the data range's start
 * in chunks of `chunk` bytes, `done` of them moved; then the write offset
 * covers them, the archive's files go, and the switch is cleared. Recorded
 * before the first byte moves, so a crash is finished on the next open:
 * the log is the old content until then, the new one after. */
struct log_switch {
	uint64_t src;	/* where the new content starts, a file offset */
	uint64_t len;	/* its bytes (0: the log emptied) */
	uint64_t chunk; /* bytes moved at a time; 0: no switch under way */
	uint64_t done;	/* chunks moved */
};

struct log_state {
	uint64_t seq;  /* which slot is newer: the higher one */
	uint64_t base; /* log position of the data range's first byte */
	struct log_switch sw;
	/* Which content the log holds: one more each time it is replaced or
	 * emptied (a reader that saw another one has read another log). */
	uint64_t content;
};

/* Reads the two slots (RECV_LOG_STATE_SLOTS * RECV_LOG_STATE_SLOT bytes at
 * page) of the pool with that UUID: the newer valid one in *out, and true;
 * false (and a zero state) when neither is valid. */
bool log_state_decode(const uint8_t *page, const uint8_t uuid[16],
		      struct log_state *out);

/* Encodes next (its seq one above the current record's) for the pool with
 * that UUID into slot (RECV_LOG_STATE_SLOT bytes); *slot_index says which of
 * the two it goes into: the one the current record is not in. */
void log_state_encode(const struct log_state *next, const uint8_t uuid[16],
		      uint8_t slot[RECV_LOG_STATE_SLOT], unsigned *slot_index);

#endif
