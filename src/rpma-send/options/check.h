/* The operands and the options together, once all are read: which
 * operand is HOST and which FILE in each mode, the replicas listed, and
 * the options that go, or do not go, with each other. Each refusal is
 * argp's: one line and exit status 2. */
#ifndef SEND_OPTIONS_CHECK_H
#define SEND_OPTIONS_CHECK_H

#include <argp.h>

struct send_args;

/* At ARGP_KEY_END: sets a->input, a->replicas and a->cfg's targets. */
void send_args_check(struct argp_state *state, struct send_args *a);

#endif
