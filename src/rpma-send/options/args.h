/* What the command line asked of rpma-send: the stream's configuration and
 * each mode's own options, as the table's rows (options/table.h) set them,
 * the positionals then checked against them (options/check.h). */
#ifndef SEND_OPTIONS_ARGS_H
#define SEND_OPTIONS_ARGS_H

#include "cli/endpoint.h"
#include "cli/log.h"
#include "common/send_config.h"
#include "fetch/config.h"
#include "proto/auth.h"
#include "verify/config.h"

#include <stdbool.h>
#include <stdint.h>

struct send_args {
	struct ship_config cfg;
	bool stats;
	bool follow;
	uint64_t rotate_wait_ms; /* --rotate-wait */
	bool rotate_wait_given;
	bool stop_wait_given; /* --stop-wait */
	bool verify;
	enum verify_method verify_method;
	bool send_first;
	bool resume;
	bool fetch;
	struct fetch_start from; /* --from */
	bool from_given;
	const char *auth_key_path;
	struct rs_auth_key auth_key;
	struct rs_target replicas[RS_TARGETS_MAX]; /* HOST1,HOST2,... */
	unsigned nreplicas;
	const char *args[2]; /* positionals: HOST FILE, or FILE HOST */
	int nargs;
	const char *input;
	enum rs_log_level level;
};

#endif
