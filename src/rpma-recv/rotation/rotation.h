/* Where a log's pool sits in the log's whole content, and rotation: moving
 * the pool's committed bytes into the log's archive (rotation/archive.h) so
 * that the pool can be started over instead of filling up.
 *
 * A log's content is its archive's files followed by its pool's committed
 * bytes; a log position counts bytes from the start of that whole. The
 * pool's data range starts at the log position `base`, kept in the
 * receiver's record in the pool's header page (pool/log_state.h).
 *
 * Rotation, with the writer's help: once the pool is rotate-at full, the
 * receiver's archiver (rotation/archiver.h) copies its committed bytes into
 * a new archive stretch while the writer appends. When the pool is full the
 * writer, with nothing in flight, asks for a rebase (RS_MSG_REBASE): the
 * archiver copies the rest and makes the stretch durable under its name;
 * then, on the log's thread, the pool is emptied (its write offset back at
 * the start of its data range) and the new base recorded.
 * A crash between any two of those steps is finished when the log is next
 * opened: the stretch durable and the pool still full means the pool is
 * emptied now; the pool empty and the record old means the record is
 * written now. So the archive and the pool, concatenated, are the log's
 * content at every moment a reader can see, and nothing committed is lost
 * or doubled.
 *
 * RPMA_RECV_STOP_AT=archive-copy|archive-sealed|pool-rewound|base-recorded
 * in the environment stops the receiver (SIGSTOP) at that step, once, for
 * the tests that kill it there; with RPMA_RECV_HOLD_FILE naming a file
 * that exists then, only the thread at the step waits, until it is gone. */
#ifndef RECV_ROTATION_H
#define RECV_ROTATION_H

#include "pool/pmem_target.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_error;
struct recv_archiver;
struct recv_rotation;

/* Rotation into an archive (rotation/archive.h), from the log's settings. */
struct recv_rotation_config {
	char dir[PATH_MAX]; /* "": none, a full pool is full */
	unsigned rotate_at; /* percent full that starts archiving */
	unsigned keep;	    /* files kept at most, 0: all */
	uint64_t max_bytes; /* bytes kept at most, 0: all */
};

/* Reads the record of the pool t serves (mapped, locked), opens the
 * archive when cfg has one and finishes a rotation a crash cut short; the
 * archiving is archiver's (NULL: none, each rebase copies all at once).
 * RS_E_IO or RS_E_MALFORMED when the archive and the pool do not fit
 * together, RS_E_INVAL for a configuration that cannot work (an
 * archive-max below one pool's content). */
int recv_rotation_open(const struct recv_rotation_config *cfg,
		       const char *log_name, struct recv_pmem_target *t,
		       struct recv_archiver *archiver,
		       struct recv_rotation **out, struct rs_error *err);
/* Takes the log out of the archiver's turns (a stretch being written is
 * left for the next open to remove) and frees. */
void recv_rotation_close(struct recv_rotation **r);

/* From the log's thread after its pool grew: once it is rotate-at full,
 * the archiver copies it a chunk at a time. */
void recv_rotation_nudge(struct recv_rotation *r);

/* Whether the log has an archive, so that its pool can be started over. */
bool recv_rotation_enabled(const struct recv_rotation *r);
/* The log position of the pool's data range's first byte. */
uint64_t recv_rotation_base(const struct recv_rotation *r);
/* The first log position the log still holds: its archive's first byte,
 * else the base. */
uint64_t recv_rotation_first(const struct recv_rotation *r);
/* The log position just after its last committed byte. */
uint64_t recv_rotation_end(const struct recv_rotation *r);
/* Which content the log holds: it changes when the log is replaced or
 * emptied, never when it grows or rotates. */
uint64_t recv_rotation_content(const struct recv_rotation *r);

/* What the archive holds (files, bytes; zeros when none) and the base,
 * as of the last change: safe from any thread. */
void recv_rotation_archived(struct recv_rotation *r, unsigned *files,
			    uint64_t *bytes, uint64_t *base);

/* Copies len bytes of the archive from log position pos (below the base)
 * into dst. RS_E_IO or RS_E_INVAL (not in the archive) with err. */
int recv_rotation_read_archive(const struct recv_rotation *r, uint64_t pos,
			       void *dst, size_t len, struct rs_error *err);

/* The writer, with nothing in flight, asks to start the pool over; its
 * pool ends at absolute offset `write`. Returns RS_MSG_OK and the new base
 * in *base, or the RS_MSG_* status that says why not (logged). All at
 * once, on the caller's thread. */
uint8_t recv_rotation_rebase(struct recv_rotation *r, uint64_t write,
			     uint64_t *base);
/* The same in two steps, so that the copy and the files' fsync happen on
 * the archiver's thread: RS_MSG_OK when it is under way, else the status
 * that says why not (logged). Then, on the log's thread, poll until it
 * returns true with the status and (RS_MSG_OK) the new base; the archiver
 * calls wake (recv_rotation_on_rebased) from its thread when it is time. */
uint8_t recv_rotation_rebase_begin(struct recv_rotation *r, uint64_t write);
bool recv_rotation_rebase_poll(struct recv_rotation *r, uint8_t *status,
			       uint64_t *base);
void recv_rotation_on_rebased(struct recv_rotation *r, void (*wake)(void *),
			      void *ctx);
/* Whether a rebase is under way (begun, not yet polled over). */
bool recv_rotation_rebasing(const struct recv_rotation *r);

/* Makes the replacement at file offset src, len bytes (written beside the
 * old content, rotation/generation.h), the log's content: from position 0, its
 * archive emptied. Recorded first, so that a crash at any step is finished
 * when the log is next opened: the log is either all old or all new.
 * RS_MSG_OK, or RS_MSG_BAD_REQUEST for a range outside the pool. The
 * caller is the log's writer, nothing else in flight. */
uint8_t recv_rotation_switch(struct recv_rotation *r, uint64_t src,
			     uint64_t len);

/* A destructive --truncate (in place): the log emptied at once, its
 * archive's files removed, from position 0 again; one decision, recorded
 * first (an empty switch), so that a crash never leaves half of it. */
void recv_rotation_empty(struct recv_rotation *r);

#endif
