/* rpma-send --fetch HOST[:PORT][/NAME] [FILE|-]: the log's content into
 * FILE (created or emptied) or standard output; with --resume, FILE is a
 * local copy checked by hashes to be a prefix of the log, and only the
 * rest is appended. The fetch itself is fetch/fetcher.h's. */
#ifndef SEND_FETCH_COMMAND_H
#define SEND_FETCH_COMMAND_H

#include "fetch/config.h"

#include <stdbool.h>

struct fetch_command {
	struct fetch_config fetch;
	const char *file; /* "-": standard output */
	bool resume;	  /* append to FILE what it lacks */
	bool stats;	  /* --stats */
};

/* Returns 0 or a negative rs_errc, reported (fetch_run's, RS_E_IO for
 * FILE, RS_E_DIVERGED for a copy that is not a prefix of the log). */
int fetch_command_run(struct fetch_command *cmd, struct fetch_result *result);

#endif
