/* Every setting of rpma-recv, one row each (tmux's options-table.c is the
 * model): its key in the configuration file, the type and range of its
 * value, its default, whether it is global or a log's, what a reload does
 * with it, its command-line flag and its help. Reading the file
 * (config/keys.c), the flags (config/flags.c), the checks and defaults
 * (settings/value.c) and the reload (config/reload.c) follow from here.
 * Data only: the code that acts on a row is in those files. */
#ifndef RECV_SETTINGS_TABLE_H
#define RECV_SETTINGS_TABLE_H

#include "settings/settings.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kinds of value (settings/value.h checks each). */
enum settings_type {
	SETTINGS_COUNT,	      /* a whole number, min to max */
	SETTINGS_PORT,	      /* a count kept as the endpoint's port text */
	SETTINGS_SIZE,	      /* bytes: 64K, 1M, 4096 */
	SETTINGS_DURATION,    /* milliseconds: 10, 10s, 500ms, 2m */
	SETTINGS_PERCENT,     /* a share of something: 75 or 75% */
	SETTINGS_BOOL,	      /* yes or no; a flag without argument says yes */
	SETTINGS_ADDRESS,     /* listen: an address (ADDR[:PORT] as a flag) */
	SETTINGS_PATH,	      /* a path (absolute in the file) */
	SETTINGS_KEY_FILE,    /* a path to an auth key, loaded as it is read */
	SETTINGS_CIDR_LIST,   /* address ranges, accumulated */
	SETTINGS_METHOD_LIST, /* persistence methods offered */
};

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

struct settings_row {
	const char *name; /* the key in the file */
	enum settings_type type;
	uint64_t min, max; /* of a number (UINT64_MAX: no limit) */
	uint64_t flag_min; /* the flag's lower min, 0: min (see create) */
	uint64_t def;	   /* a number's or a bool's default */
	const char *note;  /* why min is what it is, or NULL */
	const char *like;  /* an example for messages, or NULL */
	enum settings_scope scope;
	enum settings_reload reload;
	bool repeatable;     /* a list that several lines add to */
	size_t offset, size; /* the field(s) in the scope's struct */
	const char *flag;    /* the long option, NULL: only in the file */
	char short_flag;     /* 0: none */
	const char *arg;     /* the flag's argument, NULL: it takes none */
	const char *help;    /* what it does, for --help */
};

extern const struct settings_row settings_rows[];
extern const size_t settings_nrows;

/* Rows there may be: the size of per-row arrays and bit sets. */
#define SETTINGS_ROWS_MAX 32

/* The row of that key, or NULL. */
const struct settings_row *settings_row_find(const char *name);

/* Its position in settings_rows. */
size_t settings_row_index(const struct settings_row *row);

/* The row's field in owner: a recv_settings for a global row, a
 * recv_log_settings for a log's. */
void *settings_row_field(const struct settings_row *row, void *owner);

/* The min in force for a value given from there. */
uint64_t settings_row_min(const struct settings_row *row,
			  enum settings_source from);

#endif
