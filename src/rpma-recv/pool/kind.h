/* What a pool's path is, before any PMDK call looks at it: a pool is a
 * regular file or a device-DAX; a directory, another device, a FIFO or a
 * file too small to hold a pool is named as such, with the fix. */
#ifndef RECV_POOL_KIND_H
#define RECV_POOL_KIND_H

#include "error.h"

/* 0 for a regular file of at least a pool's minimum, a device-DAX, or a
 * path that does not exist (the caller may create it); RS_E_IO with the
 * line otherwise, a symbolic link to nothing included. */
int recv_pool_kind_check(const char *path, struct rs_error *err);

#endif
