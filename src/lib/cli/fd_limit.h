/* The process's open-file limit (RLIMIT_NOFILE): a shell's usual soft
 * limit of 1024 is far below what the hard limit allows (524288 under
 * systemd), and both programs hold a descriptor per file or connection. */
#ifndef RS_CLI_FD_LIMIT_H
#define RS_CLI_FD_LIMIT_H

/* Raises the soft limit to the hard one; says why at -v when it cannot. */
void rs_fd_limit_raise(void);

/* The soft limit now, or 0 when there is none (or it cannot be read). */
unsigned long long rs_fd_limit(void);

#endif
