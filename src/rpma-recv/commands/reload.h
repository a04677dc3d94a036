/* rpma-recv --reload PID: asks the receiver of process PID to reread its
 * configuration and waits until it has (service/reload_ask.h says how they
 * speak), so that the unit's ExecReload=, and `systemctl reload`, return
 * once the logs it added are served. */
#ifndef RECV_RELOAD_H
#define RECV_RELOAD_H

#include <sys/types.h>

/* Returns the exit status (rpma-recv(1)): 0 reloaded; 2 PID is no process
 * this user may signal, or the receiver kept its configuration (the file
 * was refused: its log says FILE:LINE); 3 the receiver ended before it was
 * done. An rpma-recv older than --reload (it reloads, says nothing) is
 * given RELOAD_TAKEN_WAIT_S, then 0 and a warning. */
int recv_reload_command(pid_t pid);

#endif
