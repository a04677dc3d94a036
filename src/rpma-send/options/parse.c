/* The table's rows as argp options, and argp's callback. */
#include "options/parse.h"

#include "error.h"
#include "options/args.h"
#include "options/check.h"
#include "options/table.h"
#include "options/value.h"

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
	const struct send_option_row *row = send_option_by_key(key);
	struct rs_error err = {0};
	if (row) {
		if (send_option_parse(a, row, arg, &err))
			argp_error(state, "%s", err.msg);
		return 0;
	}
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

const struct argp *send_options_argp(void)
{
	static struct argp_option options[SEND_OPTION_ROWS_MAX + 1];
	static char help[SEND_OPTION_ROWS_MAX][512];
	static const struct argp argp = {options, parse_opt, args_doc, doc,
					 0,	  0,	     0};
	if (options[0].name)
		return &argp;
	for (size_t i = 0; i < send_option_nrows; i++) {
		const struct send_option_row *row = &send_option_rows[i];
		options[i] = (struct argp_option){
		    row->name,
		    send_option_key(row),
		    row->arg,
		    row->arg_optional ? OPTION_ARG_OPTIONAL : 0,
		    send_option_help(row, help[i], sizeof(help[i])),
		    0};
	}
	return &argp;
}
