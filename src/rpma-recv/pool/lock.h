/* One writer per pool, whatever the operator does: a pool a receiver serves
 * is locked against every other opener (another rpma-recv, on any port or
 * host path to the same file or device) for as long as it is served; two
 * writers would silently lose committed bytes. Two advisory locks on the
 * pool's descriptor: an open-file-description lock on its first byte is the
 * guard (taken before libpmemlog opens the pool, and kept whatever other
 * descriptors of the file this process opens and closes); a process lock on
 * its second byte, taken once the pool is open, names the holder's pid to
 * the one refused. Neither meets libpmemlog's own flock(2). */
#ifndef RECV_POOL_LOCK_H
#define RECV_POOL_LOCK_H

#include "error.h"

/* Takes the guard on fd, the pool at path. RS_E_BUSY when another holds
 * it, with a line naming its pid when it announced itself. */
int recv_pool_lock(int fd, const char *path, struct rs_error *err);

/* Names this process as the holder (after libpmemlog has closed its own
 * descriptors of the pool: closing one drops a process lock). */
int recv_pool_lock_announce(int fd, struct rs_error *err);

#endif
