/* Rotation's insides, shared by its files: rotation/rotation.c (opening, the
 * writer's rebase, reading the archive), rotation/archiver.c (the thread
 * that copies while the writer appends), rotation/switch.c (a replacement
 * switched in) and, below the three, rotation/state.c (what they all
 * call). Nothing else includes this. */
#ifndef RECV_ROTATION_INTERNAL_H
#define RECV_ROTATION_INTERNAL_H

#include "pool/log_state.h"
#include "proto/descriptor.h"
#include "rotation/archive.h"
#include "rotation/rotation.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Where a rebase's slow part stands. */
enum rotation_seal {
	ROTATION_SEAL_NONE,
	ROTATION_SEAL_WANTED, /* the archiver's to do */
	ROTATION_SEAL_DONE,   /* seal_status says how it went */
};

struct recv_rotation {
	struct recv_rotation_config cfg;
	char name[RS_LOG_NAME_MAX + 1];
	struct recv_pmem_target *t;
	bool recordable;	 /* the pool has room for our record */
	struct log_state state;	 /* the record in force */
	struct archive *archive; /* NULL: no archive */
	/* The receiver's archiver (rotation/archiver.c; NULL: none, a
	 * rebase does it all at once) copies the pool's committed bytes
	 * into the open stretch while the writer appends, and makes it
	 * durable when the writer asks for a rebase. The lock covers the
	 * stretch, the pool's emptying and the record; it is held across
	 * the archiver's I/O, so the log's thread takes it only once the
	 * archiver is done with the log (a seal done), or for a switch. The
	 * archive's listing has a lock of its own (rotation/archive.h). */
	struct recv_archiver *archiver;
	struct recv_rotation *next_queued; /* the archiver's queue */
	bool queued;			   /* in it (the archiver's lock) */
	bool forgotten; /* closing: never queued again (the same lock) */
	bool in_turn;	/* a thread of the archiver works on it (same) */
	bool again;	/* queued meanwhile: queue it when its turn ends */
	atomic_bool queued_hint; /* the same, read without it */
	_Atomic uint64_t copied; /* bytes in the open stretch */
	pthread_mutex_t lock;
	atomic_bool failed; /* it met an error: the writer's rebase retries */
	uint64_t synced;    /* bytes of the stretch made durable */
	bool stopped_copy;  /* RPMA_RECV_STOP_AT=archive-copy done */
	/* A rebase asked for: the archiver makes the stretch durable, then
	 * wakes the log's thread, which starts the pool over. */
	atomic_int seal; /* enum rotation_seal */
	uint64_t seal_write;
	uint8_t seal_status;
	void (*wake_log)(void *ctx);
	void *wake_ctx;
	/* What another thread (the service's metrics) may read. */
	_Atomic uint64_t pub_base, pub_archived;
	atomic_uint pub_files;
};

/* What the files share (rotation/state.c). How messages name the log. */
const char *rotation_label(const struct recv_rotation *r);
/* Stores the record with the next sequence number, and publishes. */
void rotation_store(struct recv_rotation *r, uint64_t base);
/* The pool's committed bytes. */
uint64_t rotation_pool_used(const struct recv_rotation *r);
/* The figures other threads read, after they changed. */
void rotation_publish(struct recv_rotation *r);

/* Drops the stretch the archiver was writing (the pool's bytes are
 * about to change by other means than a rebase), the lock held. */
void rotation_abandon_stretch(struct recv_rotation *r);

/* A switch to a replacement the record says is under way, finished
 * (rotation/switch.c), at open. */
void rotation_switch_recover(struct recv_rotation *r);

/* The archiver (rotation/archiver.c). Copies up to n pool bytes after
 * what the open stretch holds into it (opening one at the base when none
 * is), the lock held. */
int rotation_copy_more(struct recv_rotation *r, uint64_t n,
		       struct rs_error *err);
/* Whether the pool is rotate-at full with more committed than the
 * stretch's copied bytes hold. */
bool rotation_copy_due(const struct recv_rotation *r, uint64_t copied);
/* Logs e and leaves the rest to the writer's rebase, which tries again. */
void rotation_archiver_failed(struct recv_rotation *r,
			      const struct rs_error *e);
/* Gives r a turn of the archiver soon (from the log's thread). */
void rotation_archiver_queue(struct recv_rotation *r);
/* r takes no more turns: out of the queue, and its turn over. */
void rotation_archiver_forget(struct recv_rotation *r);

/* A rebase's slow part (rotation/rotation.c), the lock held, one step at a
 * time: a chunk more of the pool's bytes up to write copied, or, once
 * they all are, the stretch made durable under its name (*done then).
 * RS_MSG_OK, or the status that says why not (logged; *done). */
uint8_t rotation_seal_step(struct recv_rotation *r, uint64_t write, bool *done);
/* All the steps at once (no archiver: the rebase does it). */
uint8_t rotation_seal_durable(struct recv_rotation *r, uint64_t write);

#endif
