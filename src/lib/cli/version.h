/* What --version says: the program, its release (the project's version,
 * RS_VERSION from the build) and the protocol versions it speaks, which
 * decide whom it can talk to (rpma-ship(7)). */
#ifndef RS_CLI_VERSION_H
#define RS_CLI_VERSION_H

#include "proto/descriptor.h"

#define RS_CLI_STR2(x) #x
#define RS_CLI_STR(x) RS_CLI_STR2(x)

/* "PROGRAM 0.5.0 (protocol versions 9 to 10)" */
#define RS_CLI_VERSION_LINE(program)                                           \
	program " " RS_VERSION " (protocol versions " RS_CLI_STR(              \
	    RS_PROTO_VERSION_MIN) " to " RS_CLI_STR(RS_PROTO_VERSION) ")"

#endif
