/* A table's rows as argp's options: those on the command line, in the
 * rows' order, each with its help and its default as the program says it.
 * Both programs' --help and --usage come from here. */
#ifndef RS_CLI_OPTION_ARGP_H
#define RS_CLI_OPTION_ARGP_H

#include "cli/option.h"

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>

/* The options (ended by a zeroed one) and the text of their help. */
struct cli_option_argp {
	struct argp_option options[CLI_OPTION_ROWS_MAX + 1];
	char help[CLI_OPTION_ROWS_MAX][512];
};

/* A row's help as --help shows it: row->help, or buf. */
typedef const char *(*cli_option_help_of)(const struct cli_option *row,
					  char *buf, size_t len);

/* Fills out from t's rows that are no file-only keys. */
void cli_option_argp_fill(struct cli_option_argp *out,
			  const struct cli_option_table *t,
			  cli_option_help_of help_of);

/* For argp's callback: when key is a row of t's, sets its option in owner
 * from arg (cli/option_value.h; a bad value is argp's error, exit status
 * 2) and returns true; false for any other key. */
bool cli_option_argp_parse(const struct cli_option_table *t, void *owner,
			   int key, const char *arg, struct argp_state *state);

/* The row's --help: its help, with "(default DEF...)" when the row says
 * so, DEF as it is typed (1M, 5ms, 5s). Returns row->help or buf. */
const char *cli_option_help(const struct cli_option *row, char *buf,
			    size_t len);

/* "HELP (default DEF[NOTE])" in buf, NOTE the row's default_note; just
 * the row's help when def is "". */
const char *cli_option_help_with_default(const struct cli_option *row,
					 const char *def, char *buf,
					 size_t len);

#endif
