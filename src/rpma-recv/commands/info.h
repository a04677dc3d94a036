/* rpma-recv --info: what a pool holds, read without writing a byte or
 * taking a lock (pool/peek.h), so it works on a pool the user may only
 * read and on one a receiver serves; and, for a served log, what its
 * receiver has done, from the metrics file (metrics/metrics.h). */
#ifndef RECV_INFO_H
#define RECV_INFO_H

/* Prints the report on stdout; metrics: the metrics file to look the pool
 * up in, or NULL. Returns 0 or a negative rs_errc (the reason printed). */
int recv_info_print(const char *pool_path, const char *metrics);

#endif
