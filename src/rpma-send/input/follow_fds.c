#include "input/follow_fds.h"

#include "cli/fd_limit.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

unsigned long long follow_fds_reserve(unsigned long long limit)
{
	unsigned long long r = limit / 8;
	if (r > FOLLOW_FDS_RESERVE)
		r = FOLLOW_FDS_RESERVE;
	return r ? r : 1;
}

int follow_fds_open(const char *path, int flags)
{
	int fd = open(path, flags);
	if (fd < 0)
		return fd;
	/* A new descriptor is the lowest free one: when it is this close to
	 * the limit, every one below it is taken. */
	unsigned long long limit = rs_fd_limit();
	if (limit &&
	    (unsigned long long)fd + follow_fds_reserve(limit) >= limit) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}
