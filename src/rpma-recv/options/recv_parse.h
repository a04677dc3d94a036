/* rpma-recv's command line for argp: its options from the rows of
 * options/recv_options.c, the settings' flags as a child (config/flags.h), the
 * program's description and usage lines, and the whole checked at the end
 * (options/recv_args_check.h). */
#ifndef RECV_OPTIONS_PARSE_H
#define RECV_OPTIONS_PARSE_H

#include <argp.h>

struct recv_args;

/* Nothing given, the log level normal, every setting at its default. */
void recv_args_init(struct recv_args *a);

/* The parser; its input is a struct recv_args set by recv_args_init(). */
const struct argp *recv_options_argp(void);

#endif
