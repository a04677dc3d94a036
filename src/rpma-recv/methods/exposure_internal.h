/* What an exposure is made of. Only methods/exposure.c, the method files
 * (methods/<method>.c) include this: to everyone
 * else it is opaque. */
#ifndef RECV_EXPOSURE_INTERNAL_H
#define RECV_EXPOSURE_INTERNAL_H

#include "methods/commit.h"
#include "methods/exposure.h"
#include "methods/write_windows.h"
#include "pool/pmem_target.h"
#include "proto/method.h"

#include <stdint.h>

struct rs_mr;
struct rs_peer;

/* A region a method registered of its own, and the memory it allocated
 * for it (freed with it). */
struct recv_exposure_own {
	struct rs_mr *mr;
	void *mem;
};

struct recv_exposure {
	/* The protection domain of the log's writers that write through
	 * windows or a ring (gpspm, staged) and of every writer's queue pair
	 * in its auth challenge: what is registered here with remote access
	 * is the staging ring while a staged writer holds it; the pool's
	 * regions are registered for windows only (no key of their own). */
	struct rs_peer *peer;
	const struct recv_pmem_target *target;
	struct recv_exposure_config cfg;
	/* [start, end) of the log registered with spare_access (to learn what
	 * the device takes: pool_writable, pool_flushable) on a protection
	 * domain of its own, spare_pd, where no queue pair lives: the next
	 * writer that needs a key to all of it (apm, flush, gpspm without
	 * windows) takes both as its own, its queue pair made there, so that
	 * no other queue pair ever reaches the region (methods/writer_keys.h).
	 * Made anew after such a writer's session. */
	struct rs_peer *spare_pd;
	struct rs_mr *spare;
	unsigned spare_access;
	bool windows;
	bool windows_bounded; /* the device keeps them to their range */
	bool pool_writable;
	bool pool_flushable; /* it takes RDMA FLUSH to persistence */
	struct recv_exposure_own own[RS_METHOD_COUNT]; /* by method id */
	unsigned users[RS_METHOD_COUNT]; /* sessions of an on-demand method */
	struct recv_staging staging;	 /* what staged commits copy from */
	uint8_t methods;		 /* RS_METHOD_BIT() of each offered */
};

#endif
