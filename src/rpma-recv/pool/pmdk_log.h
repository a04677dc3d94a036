/* libpmemlog, PMDK's log pool library: the only file that calls it.
 *
 * We create pools with it, and open each pool with it once at start to
 * hold our own reading of the layout (pool_layout.h) against PMDK's, so
 * that a replica stays a standard pool that PMDK's tools read. PMDK 1.13
 * (Debian 13) marks every libpmemlog call deprecated and PMDK 2.0 removed
 * the library; what we read at run time never needs it (pool/peek.h,
 * commands/export.h). The deprecation is acknowledged in pool/pmdk_log.c
 * for these calls alone, so that any other deprecated call still fails the
 * build. */
#ifndef RECV_PMDK_LOG_H
#define RECV_PMDK_LOG_H

#include <stddef.h>
#include <sys/types.h>

/* libpmemlog's smallest pool (PMEMLOG_MIN_POOL), 2 MiB. */
#define RECV_PMDK_LOG_MIN_POOL ((size_t)2 << 20)

/* An open libpmemlog pool (PMEMlogpool). */
struct recv_pmdk_log;

/* pmemlog_open: 0 with errno set on failure (EWOULDBLOCK while another
 * program holds the pool). */
struct recv_pmdk_log *recv_pmdk_log_open(const char *path);

/* pmemlog_create: a file of size bytes with mode, or with size 0 a whole
 * device-DAX; 0 with errno set on failure. */
struct recv_pmdk_log *recv_pmdk_log_create(const char *path, size_t size,
					   mode_t mode);

/* pmemlog_errormsg: libpmemlog's last message in this thread. */
const char *recv_pmdk_log_errormsg(void);

/* pmemlog_tell and pmemlog_nbyte: bytes committed, bytes of log. */
long long recv_pmdk_log_tell(struct recv_pmdk_log *log);
size_t recv_pmdk_log_nbyte(struct recv_pmdk_log *log);

void recv_pmdk_log_close(struct recv_pmdk_log *log);

/* pmemlog_walk with a chunk size of 0: the whole log to fn, once; and
 * pmemlog_check: 1 if consistent. PMDK's own reading, for the tests that
 * hold what we write against it. */
void recv_pmdk_log_walk(struct recv_pmdk_log *log,
			int (*fn)(const void *buf, size_t len, void *arg),
			void *arg);
int recv_pmdk_log_check(const char *path);

#endif
