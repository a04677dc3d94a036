/* rpma-send's command line for argp: the options built from the table's
 * rows (options/table.h), the program's description and its usage lines,
 * each option set as its row says and the whole checked at the end
 * (options/check.h). */
#ifndef SEND_OPTIONS_PARSE_H
#define SEND_OPTIONS_PARSE_H

#include <argp.h>

struct send_args;

/* Everything zero, the log level normal, each row's default in its field. */
void send_args_init(struct send_args *a);

/* The parser; its input is a struct send_args set by send_args_init(). */
const struct argp *send_options_argp(void);

#endif
