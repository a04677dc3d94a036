/* Every setting of rpma-recv, one row each (tmux's options-table.c is the
 * model): its key in the configuration file and its command-line flag, the
 * type and range of its value, its default, whether it is global or a
 * log's, what a reload does with it and its help. Reading the file
 * (config/keys.c), the flags (config/flags.c), the checks and defaults
 * (settings/value.c) and the reload (config/reload.c) follow from here.
 * Data only: the code that acts on a row is in those files. */
#ifndef RECV_SETTINGS_TABLE_H
#define RECV_SETTINGS_TABLE_H

#include "cli/option.h"
#include "settings/settings.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum settings_scope {
	SETTINGS_GLOBAL, /* before any section; a field of recv_settings */
	SETTINGS_LOG,	 /* in a log's section; a field of recv_log_settings */
};

/* Where a value was given: its min may differ (see create), and every
 * message names it the way it was given. */
enum settings_source {
	SETTINGS_FROM_FILE,    /* `key = value` */
	SETTINGS_FROM_FLAG,    /* --flag value */
	SETTINGS_FROM_LOG_ARG, /* --log NAME=POOL,key=value: named as a key,
				  checked as a flag */
};

/* What a reload (SIGHUP) does with a changed value. */
enum settings_reload {
	SETTINGS_RELOAD_AT_ONCE,      /* the running service takes it */
	SETTINGS_RELOAD_NEW_SESSIONS, /* the log's next connections take it */
	SETTINGS_RELOAD_NEW_LOG,      /* the log is served anew, on it */
	SETTINGS_RELOAD_RESTART,      /* kept until the receiver restarts */
};

/* The rows (lib/cli's struct cli_option, the row type of both programs),
 * in the order messages list them; argp keys of the flags without a short
 * letter from 0x200, above rpma-recv's other options'. A row's scope and
 * reload are the enums above; file_only marks a key with no flag. */
extern const struct cli_option_table settings_table;

/* (The row of a key: cli_option_find(&settings_table, key).) */

/* Its position in settings_table.rows. */
size_t settings_row_index(const struct cli_option *row);

/* The row's field in owner: a recv_settings for a global row, a
 * recv_log_settings for a log's. */
void *settings_row_field(const struct cli_option *row, void *owner);

/* The min in force for a value given from there. */
uint64_t settings_row_min(const struct cli_option *row,
			  enum settings_source from);

#endif
