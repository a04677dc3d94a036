/* What an exposure is made of. Only methods/exposure.c and the method files
 * (methods/<method>.c) include this: to everyone else it is opaque. */
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
	const struct rs_pmem_target *target;
	struct recv_exposure_config cfg;
	/* [start, end) of the log, with its own key (pool_writable: apm,
	 * flush, or gpspm without windows). Windows are bound to regions
	 * each writer registers (methods/write_windows.h). */
	struct rs_mr *data_mr;
	bool windows;
	bool windows_bounded; /* the device keeps them to their range */
	bool pool_writable;
	bool pool_flushable; /* data_mr takes RDMA FLUSH to persistence */
	struct recv_exposure_own own[RS_METHOD_COUNT]; /* by method id */
	unsigned users[RS_METHOD_COUNT]; /* sessions of an on-demand method */
	struct recv_staging staging;	 /* what staged commits copy from */
	uint8_t methods;		 /* RS_METHOD_BIT() of each offered */
};

/* For the methods whose sender stores the write offset itself (apm,
 * flush): registers the pool's offset word, with access (rdma/mr.h), as
 * method m's own region; 0, or a negative rs_errc with a notice in err. */
int recv_exposure_own_offset_word(struct recv_exposure *e, enum rs_method m,
				  unsigned access, struct rs_error *err);
/* That word, described for a sender that reads and writes it. */
struct rs_mr_desc recv_exposure_offset_word_desc(const struct recv_exposure *e,
						 enum rs_method m);

#endif
