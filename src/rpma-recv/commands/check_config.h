/* rpma-recv --check-config: the configuration the service would run with
 * (the file and the command line, combined by the same code), checked
 * without serving it: every check of the loader, then for each log that
 * its pool exists or may be created, and that the user running the check
 * may use it (commands/pool_access.h). Opens nothing for writing, creates
 * nothing, registers nothing and needs no RDMA device, so a unit may run it
 * before sending SIGHUP (ExecReload=). */
#ifndef RECV_CHECK_CONFIG_H
#define RECV_CHECK_CONFIG_H

#include "service/service.h"

/* Reports the first problem on one line (rs_err: "FILE:LINE: what, and
 * the fix") and returns its negative rs_errc; or prints "rpma-recv: FILE:
 * configuration OK, N logs: NAME, ..." on standard output (unless -q) and
 * returns 0. */
int recv_check_config(const struct recv_settings_source *source);

#endif
