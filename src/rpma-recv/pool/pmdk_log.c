#include "pool/pmdk_log.h"

#include <libpmemlog.h>

_Static_assert(RECV_PMDK_LOG_MIN_POOL == PMEMLOG_MIN_POOL,
	       "libpmemlog's smallest pool changed");

/* PMDK 1.13 marks all of libpmemlog deprecated (PMEMLOG_DEPR_ATTR); we
 * know, and keep to the calls below until pools are created without it
 * (pool/pmdk_log.h says why we use it at all). Older PMDKs mark nothing. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

struct recv_pmdk_log *recv_pmdk_log_open(const char *path)
{
	return (struct recv_pmdk_log *)pmemlog_open(path);
}

struct recv_pmdk_log *recv_pmdk_log_create(const char *path, size_t size,
					   mode_t mode)
{
	return (struct recv_pmdk_log *)pmemlog_create(path, size, mode);
}

const char *recv_pmdk_log_errormsg(void)
{
	return pmemlog_errormsg();
}

long long recv_pmdk_log_tell(struct recv_pmdk_log *log)
{
	return pmemlog_tell((PMEMlogpool *)log);
}

size_t recv_pmdk_log_nbyte(struct recv_pmdk_log *log)
{
	return pmemlog_nbyte((PMEMlogpool *)log);
}

void recv_pmdk_log_close(struct recv_pmdk_log *log)
{
	pmemlog_close((PMEMlogpool *)log);
}

void recv_pmdk_log_walk(struct recv_pmdk_log *log,
			int (*fn)(const void *buf, size_t len, void *arg),
			void *arg)
{
	pmemlog_walk((PMEMlogpool *)log, 0, fn, arg);
}

int recv_pmdk_log_check(const char *path)
{
	return pmemlog_check(path);
}

#pragma GCC diagnostic pop
