#include "pool/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/types.h>

enum { GUARD_BYTE = 0, HOLDER_BYTE = 1 };

static struct flock write_lock_of(off_t byte)
{
	struct flock fl;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = byte;
	fl.l_len = 1;
	return fl;
}

/* The pid of the process that announced itself on fd's file, or 0. */
static pid_t holder_of(int fd)
{
	struct flock fl = write_lock_of(HOLDER_BYTE);
	if (fcntl(fd, F_GETLK, &fl) || fl.l_type == F_UNLCK)
		return 0;
	return fl.l_pid;
}

int recv_pool_lock(int fd, const char *path, struct rs_error *err)
{
	struct flock fl = write_lock_of(GUARD_BYTE);
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
		return 0;
	int e = errno;
	if (e != EAGAIN && e != EACCES)
		return rs_error_set(err, RS_E_INVAL, e,
				    "cannot lock pool %s: %s", path,
				    strerror(e));
	pid_t holder = holder_of(fd);
	if (holder > 0)
		return rs_error_set(err, RS_E_BUSY, e,
				    "pool %s is in use by another rpma-recv "
				    "(pid %ld): one pool takes one writer; "
				    "stop that one or serve the log from it",
				    path, (long)holder);
	return rs_error_set(err, RS_E_BUSY, e,
			    "pool %s is in use by another process (it holds "
			    "its lock): one pool takes one writer",
			    path);
}

int recv_pool_lock_announce(int fd, struct rs_error *err)
{
	struct flock fl = write_lock_of(HOLDER_BYTE);
	if (fcntl(fd, F_SETLK, &fl) == 0)
		return 0;
	return rs_error_set(err, RS_E_INVAL, errno,
			    "cannot name this process as the pool's holder: %s",
			    strerror(errno));
}
