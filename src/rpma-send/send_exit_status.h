/* rpma-send's exit statuses, as rpma-send(1) EXIT STATUS and --help give
 * them: the one place where what went wrong below main(), 0 or a negative
 * enum rs_errc (error.h), becomes the number a script sees. A send (and
 * --resume) has its own statuses; --verify follows cmp(1). A failure
 * site picks the code that says what happened, so that this map gives
 * the status the user was promised (a method the receiver does not offer
 * is its refusal, RS_E_REJECTED, not a bad option). */
#ifndef SEND_EXIT_STATUS_H
#define SEND_EXIT_STATUS_H

#include <stdbool.h>

/* A send or --resume that ended with code: 0 everything read was
 * committed; 2 local trouble (a bad option, unreadable input, memory);
 * 3 cannot connect or the connection was lost; 4 the remote log is full;
 * 5 the receiver refused us; 6 logs that must hold the same bytes do not;
 * 7 committed on fewer replicas than listed; 8 (-f) everything read was
 * committed, but some of the followed files went before they were read;
 * 9 (-f) stopped by a signal before what the files held then was read. */
int exit_status_send(int code);

/* --verify, like cmp: any code is trouble (2); with none, same is the
 * verdict: 0 same, 1 different. */
int exit_status_verify(int code, bool same);

#endif
