/* The stop flag: SIGINT or SIGTERM asked the sender to stop. main.c's
 * handler sets it; the input stops reading and every loop that waits
 * (connecting, the fleet, the readers) looks at it. */
#ifndef SEND_STOP_H
#define SEND_STOP_H

#include <signal.h>

/* Set by SIGINT/SIGTERM (to the signal's number): stop reading, commit what
 * was read. */
extern volatile sig_atomic_t send_stop_requested;

#endif
