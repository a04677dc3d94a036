/* An option's value: its argument checked against its row's type and
 * range, stored in its field, its handler called; the defaults set from
 * the rows; a row's --help. Every message is the one line argp prints
 * after "rpma-send: ". */
#ifndef SEND_OPTIONS_VALUE_H
#define SEND_OPTIONS_VALUE_H

#include "options/table.h"

#include <stddef.h>
#include <stdint.h>

struct send_args;
struct rs_error;

/* Everything zero, the log level normal, each row's default in its field. */
void send_args_init(struct send_args *a);

/* Sets row's option in a from arg (NULL: none given). 0, or RS_E_INVAL
 * with err set; a may then be half set. */
int send_option_parse(struct send_args *a, const struct send_option_row *row,
		      const char *arg, struct rs_error *err);

/* A count, digits only, from min to max (opt names it in the message). */
int send_option_check_count(const char *opt, const char *arg, uint64_t min,
			    uint64_t max, uint64_t *v, struct rs_error *err);

/* The row's --help: its help, with "(default DEF...)" when the row says
 * so. Returns row->help or buf. */
const char *send_option_help(const struct send_option_row *row, char *buf,
			     size_t len);

#endif
