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

struct recv_rotation {
	struct recv_rotation_config cfg;
	char name[RS_LOG_NAME_MAX + 1];
	struct rs_pmem_target *t;
	bool recordable;	 /* the pool has room for our record */
	struct log_state state;	 /* the record in force */
	struct archive *archive; /* NULL: no archive */
	/* The archiver: copies the pool's committed bytes into the open
	 * stretch while the writer appends. The lock covers the stretch
	 * and the pool's emptying; the writer's rebase takes it. */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	bool failed;	   /* it met an error: the writer's rebase retries */
	uint64_t synced;   /* bytes of the stretch made durable */
	bool stopped_copy; /* RPMA_RECV_STOP_AT=archive-copy done */
	/* What another thread (the service's metrics) may read. */
	_Atomic uint64_t pub_base, pub_archived;
	atomic_uint pub_files;
};

/* What the files share (rotation/state.c). How messages name the log. */
const char *rotation_label(const struct recv_rotation *r);
/* The tests' knob (RPMA_RECV_STOP_AT): stops the process at step. */
void rotation_stop_at(const char *step);
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
/* Logs e and leaves the rest to the writer's rebase, which tries again. */
void rotation_archiver_failed(struct recv_rotation *r,
			      const struct rs_error *e);
void *rotation_archiver_main(void *arg);

#endif
