/* The operands and the options together: POOL, the one FILE that
 * --check-config checks, and the options that do not go with each other
 * or need a log. Each refusal is argp's: one line and exit status 2. */
#ifndef RECV_OPTIONS_CHECK_H
#define RECV_OPTIONS_CHECK_H

#include <argp.h>

struct recv_args;

/* At ARGP_KEY_ARG: the operand, POOL (or --check-config's FILE). */
void recv_args_operand(struct argp_state *state, struct recv_args *a,
		       const char *arg);

/* At ARGP_KEY_END: the file --check-config checks, or the configuration
 * file the service reads when no log is given. */
void recv_args_check(struct argp_state *state, struct recv_args *a);

#endif
