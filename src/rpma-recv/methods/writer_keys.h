/* A writer's own keys to the log: the whole data range (apm, flush, and
 * gpspm where the device binds no memory windows) and, for a writer that
 * stores the write offset itself (apm, flush), the pool's offset word.
 * Registered for one writer's session and deregistered when it ends,
 * after its queue pair: no key outlives the session it was given to, so a
 * writer taken over, or gone, reaches nothing through another connection (a
 * reader's, a later writer's) with the keys it kept. What each method needs is
 * its row in the table (methods/recv_method.h: pool_access, word_access). */
#ifndef RECV_WRITER_KEYS_H
#define RECV_WRITER_KEYS_H

#include "proto/descriptor.h"

#include <stdbool.h>

struct rs_error;
struct rs_mr;
struct recv_exposure;
struct recv_method;

struct recv_writer_keys {
	struct rs_mr *pool; /* [start, end) of the log */
	struct rs_mr *word; /* the write offset's 8 bytes */
};

/* Registers what a writer of method m needs on e's device (a windowed
 * writer needs no key to the pool: its windows are its reach). 0, or a
 * negative rs_errc with the reason in err. */
int recv_writer_keys_take(struct recv_exposure *e, const struct recv_method *m,
			  bool windowed, struct recv_writer_keys *k,
			  struct rs_error *err);
/* Puts the keys into the grant (the regions' ranges are there already). */
void recv_writer_keys_describe(const struct recv_writer_keys *k,
			       struct rs_accept_info *info);
/* Deregisters them, after the writer's queue pair is gone, and with
 * refill registers the range anew for the next such writer to take (never
 * shown to anyone until then), so that its session's start does not wait
 * for it. */
void recv_writer_keys_drop(struct recv_exposure *e, struct recv_writer_keys *k,
			   bool refill);

#endif
