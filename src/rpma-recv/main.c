/* rpma-recv: exposes PMem log pools to rpma-send senders over RDMA: one
 * POOL, named logs (--log NAME=POOL), or those of a configuration file;
 * or checks such a configuration (--check-config) and exits. */
#include "cli/exit_code.h"
#include "cli/log.h"
#include "cli/signals.h"
#include "cli/version.h"
#include "commands/check_config.h"
#include "commands/export.h"
#include "commands/info.h"
#include "config/flags.h"
#include "config/log_arg.h"
#include "error.h"
#include "recv_exit_status.h"
#include "service/service.h"
#include "settings/settings.h"

#include <argp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *argp_program_version = RS_CLI_VERSION_LINE("rpma-recv");
const char *argp_program_bug_address = 0;

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

static const char args_doc[] = "[POOL]\n--check-config [FILE]";

enum {
	OPT_ONCE = 0x100, /* below the settings table's keys */
	OPT_EXPORT,
	OPT_LOG,
	OPT_CONFIG,
	OPT_CHECK_CONFIG,
};

#define RECV_DEFAULT_CONFIG "/etc/rpma-ship/rpma-recv.conf"

/* The options that are not settings; those are config/flags.h's. */
static const struct argp_option options[] = {
    {"log", OPT_LOG, "NAME=POOL", 0,
     "Serve POOL as the log NAME, which senders reach as HOST/NAME "
     "(repeatable; NAME: letters, digits, '.', '_', '-', up to 31)",
     0},
    {"config", OPT_CONFIG, "FILE", 0,
     "Read global settings and logs from FILE (rpma-recv.conf(5)); "
     "options given here override its global settings",
     0},
    {"check-config", OPT_CHECK_CONFIG, "FILE", OPTION_ARG_OPTIONAL,
     "Check the configuration the service would run with, then exit: FILE "
     "(or --check-config FILE), else --config's, else with no "
     "--log " RECV_DEFAULT_CONFIG
     "; its lines, key files and pools (each exists or "
     "may be created, readable and writable by this user). 0 and one line "
     "if good, 2 and FILE:LINE if not; writes to no pool (reads its header), "
     "needs no RDMA device",
     0},
    {"info", 'i', 0, 0,
     "Print the pool's size, use and UUID, and for a log a receiver serves "
     "what it committed and refused (from its metrics file: --metrics-file "
     "or the configuration's), then exit; writes nothing, needs no RDMA "
     "device",
     0},
    {"export", OPT_EXPORT, "FILE", 0,
     "Write the log's committed content to FILE ('-': standard output) and "
     "exit: its archive's files (--archive, or archive= of --log "
     "NAME=POOL,...), then its pool, read by rpma-recv itself (no PMDK "
     "tool); writes nothing to the pool, needs no RDMA device",
     0},
    {"once", OPT_ONCE, 0, 0, "Exit after the first sender disconnects", 0},
    {"quiet", 'q', 0, 0, "Print errors only", 0},
    {"verbose", 'v', 0, 0, "Print details of each connection", 0},
    {0},
};

#define RECV_CLI_LOGS_MAX 64

struct recv_args {
	/* The settings given here: globals over the file's, and what
	 * applies to the logs given here (create, allow, key, direct
	 * write). */
	struct settings_flags flags;
	const char *pool;
	const char *named[RECV_CLI_LOGS_MAX]; /* NAME=POOL */
	unsigned nnamed;
	const char *config;
	bool check;		/* --check-config */
	const char *check_file; /* --check-config=FILE */
	bool once;
	enum rs_log_level level;
	bool info;
	const char *export_file; /* --export */
};

/* Options that take a value. Returns false for any other key. */
static bool parse_value(int key, char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	switch (key) {
	case OPT_LOG:
		if (a->nnamed == RECV_CLI_LOGS_MAX)
			argp_error(state, "--log: at most %d",
				   RECV_CLI_LOGS_MAX);
		/* An empty NAME would be the unnamed log of a bare POOL. */
		if (!strchr(arg, '=') || arg[0] == '=')
			argp_error(state,
				   "--log '%s': give NAME=POOL, e.g. "
				   "app=/mnt/pmem/app.pool",
				   arg);
		a->named[a->nnamed++] = arg;
		return true;
	case OPT_CONFIG:
		if (!*arg)
			argp_error(state, "--config: an empty FILE name; give "
					  "the configuration file");
		a->config = arg;
		return true;
	case OPT_CHECK_CONFIG:
		if (arg && !*arg)
			argp_error(state, "--check-config: an empty FILE "
					  "name; give the configuration file, "
					  "or no '='");
		a->check = true;
		a->check_file = arg;
		return true;
	default:
		return false;
	}
}

/* --check-config: the argument is the file to check (argp binds an
 * optional argument only with '='). The file is the daemon's otherwise:
 * --config, else the default unless --log names the logs. */
static void parse_check_end(struct argp_state *state)
{
	struct recv_args *a = state->input;
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

static void parse_end(struct argp_state *state)
{
	struct recv_args *a = state->input;
	if (a->check) {
		parse_check_end(state);
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

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	if (parse_value(key, arg, state))
		return 0;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->flags;
		break;
	case 'i':
		a->info = true;
		break;
	case OPT_EXPORT:
		if (!*arg)
			argp_error(state, "--export: an empty FILE name; give "
					  "a file, or - for standard output");
		a->export_file = arg;
		break;
	case OPT_ONCE:
		a->once = true;
		break;
	case 'q':
		a->level = RS_LOG_QUIET;
		break;
	case 'v':
		a->level = RS_LOG_VERBOSE;
		break;
	case ARGP_KEY_ARG:
		if (a->pool && a->check)
			argp_error(state,
				   "--check-config: one FILE to check, not "
				   "%s and %s",
				   a->pool, arg);
		if (a->pool)
			argp_error(state, "only one POOL; name several with "
					  "--log NAME=POOL");
		a->pool = arg;
		break;
	case ARGP_KEY_END:
		parse_end(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- the settings: the file, then the command line over it ---- */

/* A log of the command line: POOL (name ""), or --log NAME=POOL[,...]
 * (config/log_arg.h); the flags that apply to every log first. */
static int add_cli_log(const struct recv_args *a, const char *pool,
		       const char *named, struct recv_settings *s,
		       struct rs_error *err)
{
	struct recv_log_settings *log = malloc(sizeof(*log));
	if (!log)
		return rs_error_set(err, RS_E_NOMEM, 0, "out of memory");
	*log = a->flags.log;
	snprintf(log->pool_path, sizeof(log->pool_path), "%s",
		 pool ? pool : "");
	int rc = named ? settings_log_arg_parse(named, log, err) : 0;
	if (!rc)
		rc = recv_settings_add_log(s, log, err);
	explicit_bzero(log, sizeof(*log)); /* it may hold a key */
	free(log);
	return rc;
}

static int add_cli_logs(const struct recv_args *a, struct recv_settings *s,
			struct rs_error *err)
{
	int rc = a->pool ? add_cli_log(a, a->pool, 0, s, err) : 0;
	for (unsigned i = 0; !rc && i < a->nnamed; i++)
		rc = add_cli_log(a, 0, a->named[i], s, err);
	return rc;
}

/* recv_settings_source: at start and on each SIGHUP. */
static int build_settings(void *ctx, struct recv_settings *s,
			  struct rs_error *err)
{
	const struct recv_args *a = ctx;
	int rc = add_cli_logs(a, s, err);
	if (!rc && a->config)
		rc = recv_settings_load(a->config, s, err);
	if (!rc)
		settings_flags_override(&a->flags, s);
	return rc;
}

static void on_stop_signal(int sig)
{
	(void)sig;
	recv_stop_requested = 1;
}

static void on_reload_signal(int sig)
{
	(void)sig;
	recv_reload_requested = 1;
}

static void install_reload_signal(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_reload_signal;
	sigaction(SIGHUP, &sa, 0);
}

/* The key of --auth-key, after the options (settings/text.c says why). */
static int load_cli_key(struct recv_args *a)
{
	struct recv_log_settings *log = &a->flags.log;
	if (!log->auth_key_path[0])
		return 0;
	struct rs_error err = {0};
	int rc = rs_auth_key_load(log->auth_key_path, &log->auth_key, &err);
	if (rc)
		rs_err("%s", err.msg);
	return rc;
}

/* The same settings as the service's, checked instead of served. */
static int check_config(struct recv_args *a)
{
	int rc = load_cli_key(a);
	if (!rc) {
		struct recv_settings_source source = {a, build_settings};
		rc = recv_check_config(&source);
	}
	memset(&a->flags.log.auth_key, 0, sizeof(a->flags.log.auth_key));
	return rc;
}

/* --info: the pool, and its counters where a receiver serves it and
 * writes them: to --metrics-file, or to the configuration's. */
static int info(struct recv_args *a)
{
	static struct recv_settings s; /* large: paths */
	recv_settings_init(&s);
	const char *conf = a->config;
	if (!conf && access(RECV_DEFAULT_CONFIG, R_OK) == 0)
		conf = RECV_DEFAULT_CONFIG;
	/* (one that cannot be read leaves the counters out, nothing else) */
	if (conf)
		recv_settings_load(conf, &s, 0);
	settings_flags_override(&a->flags, &s);
	int rc =
	    recv_info_print(a->pool, s.metrics_file[0] ? s.metrics_file : 0);
	recv_settings_free(&s);
	return rc;
}

/* --export FILE: the log of POOL or of the one --log. */
static int export_log(struct recv_args *a)
{
	static struct recv_log_settings log; /* large: paths, a key */
	log = a->flags.log;
	snprintf(log.pool_path, sizeof(log.pool_path), "%s",
		 a->pool ? a->pool : "");
	struct rs_error err = {0};
	if (a->nnamed && settings_log_arg_parse(a->named[0], &log, &err)) {
		rs_err("%s", err.msg);
		return err.code;
	}
	int rc =
	    recv_export(log.pool_path, log.archive_dir[0] ? log.archive_dir : 0,
			log.name, a->export_file);
	explicit_bzero(&log, sizeof(log));
	return rc;
}

int main(int argc, char **argv)
{
	static struct recv_args a; /* large: keys, paths */
	a.level = RS_LOG_NORMAL;
	settings_flags_init(&a.flags);

	/* argp exits with argp_err_exit_status on usage errors. */
	argp_err_exit_status = RS_EXIT_USAGE;
	const struct argp_child children[] = {
	    {settings_flags_argp(), 0,
	     "Settings (the global ones override the configuration file's; "
	     "the others apply to the logs given here):",
	     0},
	    {0}};
	struct argp argp = {options, parse_opt, args_doc, doc, children, 0, 0};
	/* getopt names the program by argv[0], the path it was run by; our
	 * own lines say rpma-recv: so do its. */
	argv[0] = (char *)"rpma-recv";
	argp_parse(&argp, argc, argv, 0, 0, &a);
	rs_log_init("rpma-recv", a.level);
	if (a.info)
		return recv_exit_status(info(&a));
	if (a.export_file)
		return recv_exit_status(export_log(&a));
	if (a.check)
		return recv_exit_status(check_config(&a));

	rs_signals_install(on_stop_signal);
	install_reload_signal();
	int rc = load_cli_key(&a);
	if (!rc) {
		struct recv_settings_source source = {&a, build_settings};
		rc = recv_service_run(&source, a.once);
	}
	memset(&a.flags.log.auth_key, 0, sizeof(a.flags.log.auth_key));
	return recv_exit_status(rc);
}
