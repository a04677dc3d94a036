/* rpma-send --verify: compare FILE with the remote log and report like
 * cmp(1), optionally after shipping FILE (--send). Every failure that is not
 * a difference is trouble, as cmp's is (exit_status.h). */
#ifndef SEND_VERIFY_COMMAND_H
#define SEND_VERIFY_COMMAND_H

#include "commands/shipper.h"
#include "verify/verifier.h"

struct verify_command {
	struct verify_config verify;
	const char *file; /* "-" for standard input */
	/* Where to check: every one of them (verify.remote is ignored). */
	const struct rs_target *replicas;
	unsigned nreplicas;
	bool send_first; /* --send: ship FILE, then verify what was shipped */
	const struct ship_config *ship;
	bool stats;
};

/* Returns 0 when FILE was compared with every replica, *same saying
 * whether it is identical on all of them; else the code of the first
 * trouble (on any replica: it wins over a difference), reported. */
int verify_command_run(const struct verify_command *cmd, bool *same);

#endif
