/* What the command line asked of rpma-recv: the settings given as flags
 * (config/flags.h), the logs it names, and the mode: serve, check the
 * configuration, print a pool's state, export a log or have a running
 * receiver reload. Set by the rows of
 * options/recv_options.c, then checked together (options/recv_args_check.h). */
#ifndef RECV_OPTIONS_ARGS_H
#define RECV_OPTIONS_ARGS_H

#include "cli/log.h"
#include "config/flags.h"

#include <stdbool.h>
#include <stdint.h>

#define RECV_DEFAULT_CONFIG "/etc/rpma-ship/rpma-recv.conf"

#define RECV_CLI_LOGS_MAX 64

struct recv_args {
	/* The settings given here: globals over the file's, and what
	 * applies to the logs given here (create, allow, key, direct
	 * write). */
	struct settings_flags flags;
	const char *pool;
	const char *named[RECV_CLI_LOGS_MAX]; /* NAME=POOL */
	unsigned nnamed;
	const char *config;
	bool check;		/* --check-config */
	const char *check_file; /* --check-config=FILE */
	bool once;
	enum rs_log_level level;
	bool info;
	const char *export_file; /* --export */
	uint32_t reload_pid;	 /* --reload PID */
};

#endif
