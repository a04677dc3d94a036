/* What an exposure is made of. Only methods/exposure.c, the method files
 * (methods/<method>.c) and methods/writer_keys.c include this: to everyone
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
	struct rs_peer *peer;
	/* The protection domain of readers' queue pairs and of what they
	 * read (made with the first reader): nothing a writer may write is
	 * registered on it, so no key reaches such a region through a
	 * reader's queue pair. */
	struct rs_peer *readers;
	const struct recv_pmem_target *target;
	struct recv_exposure_config cfg;
	/* [start, end) of the log as registered to learn what the device
	 * takes (pool_writable: apm, flush, or gpspm without windows), with
	 * spare_access; never described to anyone: the first writer that
	 * needs a key to all of it takes it as its own, later ones register
	 * their own (methods/writer_keys.h). Windows are bound to regions each
	 * writer registers (methods/write_windows.h). */
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
