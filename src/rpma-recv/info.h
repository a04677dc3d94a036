/* rpma-recv --info: what a pool holds, read the same way the service reads
 * it, for operators and scripts. */
#ifndef RECV_INFO_H
#define RECV_INFO_H

/* Prints the report on stdout; returns the exit code. */
int recv_info_print(const char *pool_path);

#endif
