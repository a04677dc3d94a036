/* A look at a pool that writes nothing and takes no lock: its signature,
 * UUID and log geometry read by our own code (PMDK 2.0 has no libpmemlog)
 * through a read-only mapping (a device-DAX cannot be read(2)). Works on a
 * pool the user may only read, and on one a receiver serves. For --info. */
#ifndef RECV_POOL_PEEK_H
#define RECV_POOL_PEEK_H

#include "error.h"

#include <libpmem2.h>
#include <stdbool.h>
#include <stdint.h>

struct recv_pool_peek {
	uint8_t uuid[16];
	uint64_t start, end, write; /* absolute offsets of the log */
	uint64_t base; /* the log position of start (pool/log_state.h) */
	enum pmem2_granularity granularity; /* not by recv_pool_peek_head */
	bool checks_bad_blocks; /* PMDK's CHECK_BAD_BLOCKS feature is on */
};

/* RS_E_IO when path cannot be read or mapped, RS_E_MALFORMED when it is
 * not a libpmemlog pool of the layout we know. */
int recv_pool_peek(const char *path, struct recv_pool_peek *out,
		   struct rs_error *err);

/* recv_pool_peek of the pool's header only: a pool file's head is read
 * (a mapping costs a receiver of a thousand pools seconds at its start:
 * libpmem2 looks up the file's region each time), a device-DAX mapped. */
int recv_pool_peek_head(const char *path, struct recv_pool_peek *out,
			struct rs_error *err);

/* Takes the log's committed bytes while the pool is mapped: returns 0 or
 * a negative rs_errc with err. */
typedef int (*recv_pool_consume_fn)(void *ctx, const uint8_t *bytes,
				    uint64_t len, struct rs_error *err);

/* recv_pool_peek, then the committed bytes handed to consume. */
int recv_pool_peek_data(const char *path, struct recv_pool_peek *out,
			recv_pool_consume_fn consume, void *ctx,
			struct rs_error *err);

#endif
