/* A pool file of a test's own, made and removed around each case. */
#ifndef TEST_TEMP_POOL_H
#define TEST_TEMP_POOL_H

#include "pool/pmem_target.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Opens a new pool at a free path made from tmpl ("/tmp/NAME-XXXXXX"). */
static inline int temp_pool_open(char path[64], const char *tmpl,
				 struct recv_pmem_target *t, uint64_t size)
{
	snprintf(path, 64, "%s", tmpl);
	int fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	unlink(path);
	struct rs_error err = {0};
	if (recv_pmem_target_open(t, path, size, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return 0;
}

static inline void temp_pool_close(const char *path, struct recv_pmem_target *t)
{
	recv_pmem_target_close(t);
	unlink(path);
}

#endif
