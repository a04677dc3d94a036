/* rpma-send --verify: compare FILE with the remote log and report like
 * cmp(1), optionally after shipping FILE (--send). Every failure that is not
 * a difference exits 2, as cmp's trouble does. */
#ifndef SEND_VERIFY_COMMAND_H
#define SEND_VERIFY_COMMAND_H

#include "shipper.h"
#include "verifier.h"

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

/* Returns the exit code: 0 same (on every replica), 1 different (on any),
 * 2 trouble (on any: it wins). */
int verify_command_run(const struct verify_command *cmd);

#endif
