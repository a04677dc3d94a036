/* The write offset as input, while writers run. A one-sided writer (apm,
 * flush) stores the log's write offset itself, so the receiver treats the
 * word as it treats any byte a peer sends: it checks it against its own
 * view of the log (pool/offset_rule.h: inside the data range, never below
 * what it accepted last, which a rotation or a replacement moves back to
 * the data range's start), makes it persistent before it takes it as
 * committed, and stores back the last good value when a check fails.
 *
 * While a rotation seals the log (recv_pmem_target.end_sealed) the word
 * may not move at all.
 *
 * The receiver's view of the committed end (recv_pmem_target_write_offset)
 * moves only by its own commits and by a word adopted here: every reader,
 * grant, rotation and metric uses that view, never the raw word. The floor
 * in the pool's header (pool/offset_rule.h) follows what is adopted, so
 * that a word a writer flushed itself just before a crash is checked
 * again when the pool is next opened (pool/pmem_target.c). */
#ifndef RECV_OFFSET_WORD_H
#define RECV_OFFSET_WORD_H

#include "pool/offset_rule.h"
#include "pool/pmem_target.h"

#include <stdbool.h>
#include <stdint.h>

/* What a look at the word found. */
struct recv_offset_seen {
	enum recv_offset_rule rule; /* OK, or the rule `word` broke */
	uint64_t word;		    /* the value read */
	bool adopted; /* OK, new, and now the committed end (persistent) */
};

/* While a one-sided writer may still store: reads the word and checks it;
 * a good new word that stays put while it is made persistent is adopted
 * (the view and the floor move to it). One that moves meanwhile is left
 * for the next look. A broken one changes nothing: the caller ends the
 * writer's session, then settles. */
struct recv_offset_seen recv_offset_word_adopt(struct recv_pmem_target *t);

/* Once no one-sided writer can store any more (its queue pair is gone):
 * adopts a good word, or stores back the last good one, persistent. Either
 * way the word and the view agree when it returns. */
struct recv_offset_seen recv_offset_word_settle(struct recv_pmem_target *t);

/* A one-sided writer is about to be granted the log: the floor is the
 * committed end now, so that nothing it stores can take back what others
 * committed before it, even across a crash. */
void recv_offset_floor_raise(struct recv_pmem_target *t);

#endif
