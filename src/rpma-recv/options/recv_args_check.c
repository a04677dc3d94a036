/* What the options and the operand say together, once all are read. */
#include "options/recv_args_check.h"

#include "options/recv_args.h"

#include <string.h>
#include <unistd.h>

void recv_args_operand(struct argp_state *state, struct recv_args *a,
		       const char *arg)
{
	if (a->pool && a->check)
		argp_error(state,
			   "--check-config: one FILE to check, not %s "
			   "and %s",
			   a->pool, arg);
	if (a->pool)
		argp_error(state, "only one POOL; name several with --log "
				  "NAME=POOL");
	a->pool = arg;
}

/* --check-config: the argument is the file to check (argp binds an
 * optional argument only with '='). The file is the daemon's otherwise:
 * --config, else the default unless --log names the logs. */
static void check_config_end(struct argp_state *state, struct recv_args *a)
{
	const char *given[] = {a->check_file, a->pool, a->config};
	const char *file = 0;
	if (a->info)
		argp_error(state,
			   "--check-config and --info: give one of them");
	for (size_t i = 0; i < sizeof(given) / sizeof(*given); i++) {
		if (file && given[i] && strcmp(file, given[i]))
			argp_error(state,
				   "--check-config: one FILE to check, not "
				   "%s and %s",
				   file, given[i]);
		file = given[i] ? given[i] : file;
	}
	a->pool = 0;
	a->config = file ? file : a->nnamed ? 0 : RECV_DEFAULT_CONFIG;
}

void recv_args_check(struct argp_state *state, struct recv_args *a)
{
	if (a->reload_pid) {
		if (a->check || a->info || a->export_file || a->pool ||
		    a->nnamed || a->config)
			argp_error(state, "--reload PID goes alone: the "
					  "receiver rereads its own "
					  "configuration");
		return;
	}
	if (a->check) {
		check_config_end(state, a);
		return;
	}
	if (a->info && !a->pool)
		argp_error(state, "--info needs POOL");
	if (a->export_file && (a->info || a->config))
		argp_error(state, "--export goes without --info and --config");
	if (a->export_file && !!a->pool + a->nnamed != 1)
		argp_error(state, "--export reads one log: give POOL, or one "
				  "--log NAME=POOL[,archive=DIR]");
	if (a->pool || a->nnamed || a->config)
		return;
	if (access(RECV_DEFAULT_CONFIG, F_OK) == 0) {
		a->config = RECV_DEFAULT_CONFIG;
		return;
	}
	argp_error(state,
		   "missing POOL (a pmemlog pool file or devdax device), "
		   "--log NAME=POOL or --config FILE (there is no "
		   "%s)",
		   RECV_DEFAULT_CONFIG);
}
