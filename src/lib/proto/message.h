/* Control messages exchanged over send/recv once connected: the sender asks
 * the receiver to commit a batch (GPSPM: persist it in place; staged: copy it
 * from the staging ring first) and the receiver answers when the batch and the
 * write offset that covers it are persistent; a verifying sender asks for the
 * XXH3 hash of a committed range. Fixed size, little-endian. */
#ifndef RS_MESSAGE_H
#define RS_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/auth.h"

struct rs_error;

#define RS_MSG_SIZE 48

enum rs_msg_type {
	RS_MSG_COMMIT = 1,	    /* GPSPM: persist [offset, +length) */
	RS_MSG_STAGED_COMMIT = 2,   /* copy ring[ring_offset, +length) first */
	RS_MSG_COMMIT_DONE = 3,	    /* reply: write offset is now `offset` */
	RS_MSG_HASH = 4,	    /* verify: hash [offset, +length) */
	RS_MSG_HASH_DONE = 5,	    /* reply: its XXH3-64 is `hash` */
	RS_MSG_READ_STAGE = 6,	    /* verify: copy [offset, +length) to ring */
	RS_MSG_READ_STAGE_DONE = 7, /* reply: it is at ring_offset */
	RS_MSG_AUTH = 8,	    /* the answer to the receiver's challenge */
	RS_MSG_KEEPALIVE = 9,	    /* an idle sender is still there */
	RS_MSG_KEEPALIVE_DONE = 10, /* reply: and so is the receiver */
	RS_MSG_REBASE = 11,	    /* nothing in flight, the pool ends at
				       `offset`: archive it, start over */
	RS_MSG_REBASE_DONE = 12,    /* reply: the pool's data range now starts
				       at log position `offset`, empty */
	RS_MSG_REPLACE = 13,	    /* a replacement of `length` bytes (0: not
				       known) follows; offset 1: carry on with
				       the one this session began */
	RS_MSG_REPLACE_DONE = 14,   /* reply: it goes at file offset `offset`,
				       `length` bytes of it committed */
	RS_MSG_SWITCH = 15,	    /* the replacement is whole, ending at file
				       offset `offset`: make it the log */
	RS_MSG_SWITCH_DONE = 16,    /* reply: it is (status OK) */
	RS_MSG_WAIT = 17,	    /* a reader at log position `offset`:
				       length 0, tell now; 1, tell once the
				       log ends past it (or a while passed) */
	RS_MSG_WAIT_DONE = 18,	    /* reply: the log ends at `offset`, its
				       pool starts at `length`, its oldest
				       byte held is `ring_offset`, its
				       content is number `hash` */
	RS_MSG_WINDOW = 19,	    /* a writer granted windows, nothing in
				       flight: a key to write with, reaching
				       `length` bytes past the head at least
				       (0: any) */
	RS_MSG_WINDOW_DONE = 20,    /* reply: `key` writes [offset, +length)
				       of the pool, on this connection only */
};

enum rs_msg_status {
	RS_MSG_OK = 0,
	RS_MSG_OUT_OF_RANGE = 1,   /* outside the log or the staging ring */
	RS_MSG_NOT_CONTIGUOUS = 2, /* does not start at the write offset */
	RS_MSG_BAD_REQUEST = 3,	   /* malformed or unexpected message */
	/* REBASE_DONE (and ARCHIVE_FAILED for HASH_DONE, READ_STAGE_DONE):
	 * the pool could not be started over, the archive not read. */
	RS_MSG_ARCHIVE_DISK_FULL = 4, /* the archive's disk is full */
	RS_MSG_ARCHIVE_LIMIT = 5,     /* the pool holds more than archive-max */
	RS_MSG_ARCHIVE_FAILED = 6,    /* the archive cannot be written */
	RS_MSG_NO_ARCHIVE = 7,	      /* the log has no archive */
	/* REPLACE_DONE, SWITCH_DONE: */
	RS_MSG_NO_ROOM = 8,	   /* no room beside the old content: `length`
				      says how much there is */
	RS_MSG_NO_REPLACEMENT = 9, /* none under way (the receiver restarted) */
};
#define RS_MSG_STATUS_LAST RS_MSG_NO_REPLACEMENT

/* A COMMIT's flags (0 in every other message). LONE: a windowed writer's
 * batch with nothing else in flight, and the writer posts nothing more
 * until the reply: no older key is in use, so the receiver moves both
 * windows to the new head and no key reaches the committed bytes (a
 * writer that pauses after each line needs no keepalive to name the new
 * key). */
#define RS_MSG_LONE 0x1u
#define RS_MSG_FLAGS_KNOWN RS_MSG_LONE

struct rs_msg {
	uint8_t type;	/* enum rs_msg_type */
	uint8_t status; /* enum rs_msg_status, replies only */
	uint16_t flags; /* RS_MSG_LONE: COMMIT only */
	uint32_t seq;	/* echoed in the reply */
	/* A writer granted windows (RS_PEER_WINDOWS): COMMIT, the key its
	 * batch was written with; KEEPALIVE, the newest key it holds (it
	 * writes with no older one: the receiver may move the other window
	 * up); the replies to COMMIT, KEEPALIVE, WINDOW, REBASE, REPLACE and
	 * SWITCH, the key to write with from now on (0: the one in use). 0
	 * in every other message. */
	uint32_t key;
	/* Commits: an absolute file offset of the pool (reply: the new write
	 * offset); HASH, READ_STAGE: a log position (the archive's bytes,
	 * then the pool's); REBASE: the pool's write offset (reply: the log
	 * position the data range starts at now). */
	uint64_t offset;
	uint64_t length;      /* bytes in the batch */
	uint64_t ring_offset; /* staged: where the batch sits in the ring */
	uint64_t hash;	      /* HASH_DONE: XXH3-64 of the range */
	/* A reply that carries a key (not 0): the file offset its window
	 * ends at, so far the writer may write with it (the receiver
	 * registers only a reach of the tail). On the wire where `hash` is:
	 * no message that carries a key has a hash. */
	uint64_t key_end;
	uint8_t mac[RS_AUTH_MAC_SIZE]; /* AUTH: in place of the four above */
};

const char *rs_msg_status_str(uint8_t status);
/* Whether a message of this type may carry a window key. */
bool rs_msg_carries_key(uint8_t type);

/* Returns RS_MSG_SIZE, or 0 if buf is too small. */
size_t rs_msg_encode(const struct rs_msg *msg, void *buf, size_t len);
/* Returns 0, or RS_E_MALFORMED saying what is wrong. Ranges are the
 * receiver's to check. */
int rs_msg_decode(const void *buf, size_t len, struct rs_msg *msg,
		  struct rs_error *err);

#endif
