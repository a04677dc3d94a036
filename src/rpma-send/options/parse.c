/* The table's rows as argp options, and argp's callback. */
#include "options/parse.h"

#include "cli/option_argp.h"
#include "cli/option_value.h"
#include "error.h"
#include "options/args.h"
#include "options/check.h"
#include "options/table.h"

#include <string.h>

static const char doc[] =
    "Ship FILE (or standard input with '-' or no FILE) into the PMem log "
    "served by rpma-recv on HOST, appending after what the log holds. "
    "Each batch is persistent on the remote side before it counts as "
    "committed. A receiver serving several logs needs the log's NAME: "
    "HOST/NAME, HOST:PORT/NAME or [ADDR]:PORT/NAME; a name is 1 to 31 "
    "letters, digits, '.', '_' or '-', not starting with '.' or '-'. "
    "Several replicas, HOST1[:PORT][/NAME],HOST2..., get the same stream: "
    "a batch is committed once it is persistent on every one (or on "
    "--quorum K); they must hold the same log at start (or --truncate).\v"
    "Exit status: 0 everything read was committed; 2 bad option or "
    "unreadable input; 3 cannot connect or connection lost; 4 the remote "
    "log is full (the message says how many input bytes were committed); "
    "5 the receiver refused us (busy, method, version, log name: the "
    "message lists the logs you may use); 6 --resume found a remote log "
    "that is not a prefix of FILE, or replicas that do not hold the same "
    "log (a line for each says what it holds); 7 committed on fewer "
    "replicas than listed (--quorum: the message says which replica "
    "stopped at which length); 8 -f: some of what the files held went "
    "before it was read (the last line names each file and byte range); "
    "9 -f stopped before what the files held then was read (named in the "
    "last line; --resume -f ships it); 20 interrupted by SIGINT or SIGTERM "
    "before the run's end (a pipe or --follow ends on the signal with 0, "
    "after committing what was read; --follow 9 with a backlog). With "
    "--verify: 0 same (on every "
    "replica listed), 1 different (the message names the replica), "
    "2 trouble, 20 interrupted.";

static const char args_doc[] =
    "HOST[:PORT][/NAME][,HOST2...] [FILE|-]\n--verify[=hash|read] FILE "
    "HOST[:PORT][/NAME][,HOST2...]\n--fetch HOST[:PORT][/NAME] [FILE|-]";

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct send_args *a = state->input;
	if (cli_option_argp_parse(&send_options, a, key, arg, state))
		return 0;
	switch (key) {
	case ARGP_KEY_ARG:
		if (a->nargs == 2)
			argp_error(state, "give one FILE (or - for standard "
					  "input)");
		a->args[a->nargs++] = arg;
		return 0;
	case ARGP_KEY_END:
		send_args_check(state, a);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

void send_args_init(struct send_args *a)
{
	memset(a, 0, sizeof(*a));
	a->level = RS_LOG_NORMAL;
	cli_option_defaults(&send_options, a);
}

const struct argp *send_options_argp(void)
{
	static struct cli_option_argp options;
	static const struct argp argp = {
	    options.options, parse_opt, args_doc, doc, 0, 0, 0};
	if (!options.options[0].name)
		cli_option_argp_fill(&options, &send_options, cli_option_help);
	return &argp;
}
