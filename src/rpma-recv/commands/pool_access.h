/* Whether the user running rpma-recv may use a log's pool (and its
 * archive directory, which it must read and write), asked of the
 * file system without opening the pool (stat(2), access(2) with the real
 * user and groups): an existing pool must be readable and writable, a
 * missing one with `create` needs a directory the user may create it in.
 * For --check-config, which must neither open a pool (libpmemlog opens it
 * read-write) nor create one; whether a file is a valid pool is known
 * only when the service opens it. */
#ifndef RECV_POOL_ACCESS_H
#define RECV_POOL_ACCESS_H

#include "error.h"
#include "settings/settings.h"

/* 0, or RS_E_INVAL with one line "PLACE: pool PATH: why: what access is
 * needed (user NAME)", PLACE being "FILE:LINE: log NAME" for a log of the
 * file (its section's line) or how the log was given on the command line.
 * A pool that does not exist without `create` is settings_check_pool_
 * exists()'s to report: here it passes. */
int recv_pool_access_check(const struct recv_settings *s,
			   const struct recv_log_settings *log,
			   struct rs_error *err);

#endif
