/* One row per option of either program and per key of rpma-recv's
 * configuration file (tmux's options-table.c is the model): its name, its
 * short flag, the type and range of its value, its default, the field it
 * sets, its help, and the columns only one program reads (rpma-send's
 * modes; rpma-recv's scope, reload and file-only keys). argp's options and
 * --help come from the rows (cli/option_argp.h), the command line's values
 * too (cli/option_value.h); rpma-recv's settings read theirs, from the
 * file and the flags alike, with their own checks (its settings/value.h). */
#ifndef RS_CLI_OPTION_H
#define RS_CLI_OPTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_error;

/* The kinds of value. The first six are read by cli/option_value.c; the
 * settings' kinds by rpma-recv's settings/ (COUNT, SIZE, DURATION there
 * with the file's messages and a bare number in seconds). */
enum cli_option_type {
	CLI_OPTION_FLAG,      /* none: the field is set to true */
	CLI_OPTION_COUNT,     /* digits only, min to max */
	CLI_OPTION_SIZE,      /* bytes: 64K, 1M, 4096; min to max */
	CLI_OPTION_DURATION,  /* 500ms, 5s, 2m, min to max */
	CLI_OPTION_TEXT,      /* a word or a path, read by the handler */
	CLI_OPTION_CONST,     /* none: the field is set to def (a choice) */
	CLI_OPTION_PORT,      /* a count kept as an endpoint's port text */
	CLI_OPTION_PERCENT,   /* a share of something: 75 or 75% */
	CLI_OPTION_BOOL,      /* yes or no; a flag without argument says yes */
	CLI_OPTION_ADDRESS,   /* an address (ADDR[:PORT] as a flag) */
	CLI_OPTION_PATH,      /* a path (absolute in the file) */
	CLI_OPTION_KEY_FILE,  /* a path to an auth key, loaded as it is read */
	CLI_OPTION_CIDR_LIST, /* address ranges, accumulated */
	CLI_OPTION_METHOD_LIST, /* persistence methods offered */
};

/* Sets what the row's field alone does not: owner is the struct the
 * row's field is in, arg the option's text (NULL when it takes none or an
 * optional one is not given), value the number a COUNT, SIZE or DURATION
 * row's check passed. 0, or RS_E_INVAL with the one line argp prints. */
typedef int (*cli_option_handler)(void *owner, const char *arg, uint64_t value,
				  struct rs_error *err);

struct cli_option {
	const char *name; /* the long option, and the file's key */
	char short_flag;  /* 0: none */
	const char *arg;  /* its argument in --help, NULL: it takes none */
	bool arg_optional;
	enum cli_option_type type;
	uint64_t min, max; /* of a number (UINT64_MAX: no limit) */
	bool has_default;  /* the command line's: def is set before parsing */
	uint64_t def;
	/* --help says "(default DEF[NOTE])" after help, DEF as it is typed;
	 * else help says the default, if any, in its own words. */
	bool default_in_help;
	const char *default_note;
	size_t offset, size;	    /* the field in owner; size 0: none */
	cli_option_handler handler; /* NULL: the field is all */
	const char *help;

	/* rpma-send's: the modes that take it, a bit each. */
	unsigned modes;
	/* rpma-recv's settings: a key of the file that is no option, the
	 * scope and what a reload does (its own enums), a list that several
	 * lines add to, the flag's lower min (0: min), why min is what it
	 * is, an example for messages. */
	bool file_only;
	unsigned scope, reload;
	bool repeatable;
	uint64_t flag_min;
	const char *note, *like;
};

/* The rows of one table: its rows, how many, and the argp keys of those
 * without a short flag (key_base plus the row's index). */
struct cli_option_table {
	const struct cli_option *rows;
	size_t nrows;
	int key_base;
};

/* Rows a table may have: the size of per-row arrays. */
#define CLI_OPTION_ROWS_MAX 32

/* The row's argp key: its short flag, else key_base plus its index. */
int cli_option_key(const struct cli_option_table *t,
		   const struct cli_option *row);

/* The row of an argp key, or of a name; NULL if none. A file-only row has
 * no key. */
const struct cli_option *cli_option_by_key(const struct cli_option_table *t,
					   int key);
const struct cli_option *cli_option_find(const struct cli_option_table *t,
					 const char *name);

#endif
