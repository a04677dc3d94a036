/* A writer's own keys to the log: the whole data range (apm, flush, and
 * gpspm, where the device binds no memory windows; where it does, an apm
 * or flush writer's is a window of its own: reach/memory.c) and, for a
 * writer that stores the write offset itself (apm, flush), the pool's
 * offset word.
 * Registered for one writer's session on a protection domain of its own,
 * where no other queue pair lives, and deregistered when it ends, after its
 * queue pair: no key outlives the session it was given to, and no other
 * connection (a reader's, a later writer's, a peer's in its auth challenge)
 * reaches them with any key. What each method needs is
 * its row in the table (methods/recv_method.h: pool_access, word_access). */
#ifndef RECV_WRITER_KEYS_H
#define RECV_WRITER_KEYS_H

#include "proto/descriptor.h"

#include <stdbool.h>

struct rs_error;
struct rs_mr;
struct rs_peer;
struct recv_method;
struct recv_pmem_target;

struct recv_writer_keys {
	struct rs_mr *pool; /* [start, end) of the log */
	struct rs_mr *word; /* the write offset's 8 bytes */
};

/* Registers on peer what a writer of method m needs of t that k does not
 * hold yet (its own protection domain may have come with the key to the
 * whole range: reach/exposure.h, recv_exposure_own_peer); a windowed
 * writer needs no key to the pool: its windows are its reach. 0, or a
 * negative rs_errc with the reason in err (k then holds nothing). */
int recv_writer_keys_take(struct rs_peer *peer,
			  const struct recv_pmem_target *t,
			  const struct recv_method *m, bool windowed,
			  struct recv_writer_keys *k, struct rs_error *err);
/* Puts the keys into the grant (the regions' ranges are there already). */
void recv_writer_keys_describe(const struct recv_writer_keys *k,
			       struct rs_accept_info *info);
/* Deregisters them, after the writer's queue pair is gone. */
void recv_writer_keys_drop(struct recv_writer_keys *k);

#endif
