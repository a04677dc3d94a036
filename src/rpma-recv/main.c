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
#include "commands/reload.h"
#include "config/log_arg.h"
#include "error.h"
#include "options/recv_args.h"
#include "options/recv_parse.h"
#include "recv_exit_status.h"
#include "service/reload_ask.h"
#include "service/service.h"
#include "settings/settings.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *argp_program_version = RS_CLI_VERSION_LINE("rpma-recv");
const char *argp_program_bug_address = 0;

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

static void on_reload_signal(int sig, siginfo_t *info, void *context)
{
	(void)sig, (void)context;
	recv_reload_ask_note(info);
	recv_reload_requested = 1;
}

static void install_reload_signal(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_reload_signal;
	sa.sa_flags = SA_SIGINFO;
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
	recv_args_init(&a);

	/* argp exits with argp_err_exit_status on usage errors. */
	argp_err_exit_status = RS_EXIT_USAGE;
	/* getopt names the program by argv[0], the path it was run by; our
	 * own lines say rpma-recv: so do its. */
	argv[0] = (char *)"rpma-recv";
	argp_parse(recv_options_argp(), argc, argv, 0, 0, &a);
	rs_log_init("rpma-recv", a.level);
	if (a.info)
		return recv_exit_status(info(&a));
	if (a.export_file)
		return recv_exit_status(export_log(&a));
	if (a.check)
		return recv_exit_status(check_config(&a));
	if (a.reload_pid)
		return recv_reload_command((pid_t)a.reload_pid);

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
