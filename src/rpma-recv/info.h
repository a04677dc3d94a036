/* rpma-recv --info: what a pool holds, read the same way the service reads
 * it, for operators and scripts. */
#ifndef RECV_INFO_H
#define RECV_INFO_H

/* Prints the report on stdout; returns 0 or a negative rs_errc (the reason
 * printed). */
int recv_info_print(const char *pool_path);

#endif
