/* An option's value on the command line: its argument checked against
 * its row's type (FLAG, COUNT, SIZE, DURATION, TEXT or CONST) and range, stored
 * in its field, its handler called; the defaults set from the rows. Every
 * message is the one line argp prints after the program's name. (rpma-recv's
 * settings, which a file gives too, have their own: its settings/value.h.) */
#ifndef RS_CLI_OPTION_VALUE_H
#define RS_CLI_OPTION_VALUE_H

#include "cli/option.h"

#include <stddef.h>
#include <stdint.h>

struct rs_error;

/* Each row's default in its field in owner (has_default rows). */
void cli_option_defaults(const struct cli_option_table *t, void *owner);

/* Sets row's option in owner from arg (NULL: none given). 0, or RS_E_INVAL
 * with err set; owner may then be half set. */
int cli_option_parse(const struct cli_option *row, void *owner, const char *arg,
		     struct rs_error *err);

/* A count, digits only, from min to max (opt names it in the message). */
int cli_option_check_count(const char *opt, const char *arg, uint64_t min,
			   uint64_t max, uint64_t *v, struct rs_error *err);

#endif
