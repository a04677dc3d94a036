/* The rows as argp options, the settings' flags as its child, and argp's
 * callback. */
#include "options/recv_parse.h"

#include "cli/option_argp.h"
#include "cli/option_value.h"
#include "error.h"
#include "options/recv_args.h"
#include "options/recv_args_check.h"
#include "options/recv_options.h"

#include <string.h>

static const char doc[] =
    "Expose PMem log pools (libpmemlog pools on fsdax, devdax or plain "
    "files) to rpma-send over RDMA: one POOL, named logs given with --log, "
    "or the logs of a configuration file (with neither POOL nor --log: "
    "/etc/rpma-ship/rpma-recv.conf). One sender writes each log at a time, "
    "logs are written in parallel, a verify may read a log while it is "
    "written. Runs until SIGINT or SIGTERM; SIGHUP reloads the "
    "configuration file.\v"
    "Exit status: 0 stopped by a signal or after --once, or a good "
    "configuration with --check-config; 2 bad option, bad configuration "
    "(FILE:LINE) or a pool that cannot be used; 3 the RDMA listener could "
    "not be set up.";

static const char args_doc[] = "[POOL]\n--check-config [FILE]\n--reload PID";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	if (cli_option_argp_parse(&recv_options, a, key, arg, state))
		return 0;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->flags;
		return 0;
	case ARGP_KEY_ARG:
		recv_args_operand(state, a, arg);
		return 0;
	case ARGP_KEY_END:
		recv_args_check(state, a);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

void recv_args_init(struct recv_args *a)
{
	memset(a, 0, sizeof(*a));
	a->level = RS_LOG_NORMAL;
	settings_flags_init(&a->flags);
}

const struct argp *recv_options_argp(void)
{
	static struct cli_option_argp options;
	static struct argp_child children[] = {
	    {0, 0,
	     "Settings (the global ones override the configuration file's; "
	     "the others apply to the logs given here):",
	     0},
	    {0}};
	static const struct argp argp = {
	    options.options, parse_opt, args_doc, doc, children, 0, 0};
	if (!options.options[0].name) {
		cli_option_argp_fill(&options, &recv_options, cli_option_help);
		children[0].argp = settings_flags_argp();
	}
	return &argp;
}
