/* A pool opened the way libpmemlog sees it, before the receiver maps it:
 * validated (or created, when asked and when that destroys nothing), and
 * its committed length and size as libpmemlog reports them; or a line that
 * says why not and what to do (no such pool, permission, another program
 * holding it, PMDK's bad-block check that needs root, not a pool). */
#ifndef RECV_POOL_OPEN_H
#define RECV_POOL_OPEN_H

#include "error.h"

#include <stddef.h>
#include <stdint.h>

/* What libpmemlog says of a pool, to check our own reading against. */
struct recv_pool_view {
	long long tell; /* pmemlog_tell(): bytes committed */
	size_t nbyte;	/* pmemlog_nbyte(): bytes of log */
};

/* Opens POOL with libpmemlog, creating it first with create_size bytes
 * (a whole device-DAX: any create_size) when it does not exist or is a
 * blank device and create_size is not 0; fills view and closes it again.
 * RS_E_BUSY when another program holds it for more than a few seconds,
 * RS_E_IO otherwise. */
int recv_pool_validate(const char *path, uint64_t create_size,
		       struct recv_pool_view *view, struct rs_error *err);

/* What can be learnt of a pool without writing to it or taking its lock,
 * for the receiver to say before it listens (and --check-config): what
 * the path is, that it exists or may be created (its directory takes a new
 * entry), read and write access, a writable file system, and a pool
 * header read through a read-only mapping. 0, or RS_E_IO with the line
 * recv_pool_validate() would give, or one as plain. */
int recv_pool_precheck(const char *path, uint64_t create_size,
		       struct rs_error *err);

#endif
