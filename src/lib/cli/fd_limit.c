#include "cli/fd_limit.h"

#include "cli/log.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

void rs_fd_limit_raise(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		rs_verbose("cannot raise the descriptor limit: %s",
			   strerror(errno));
}

unsigned long long rs_fd_limit(void)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY
		   ? 0
		   : (unsigned long long)rl.rlim_cur;
}
