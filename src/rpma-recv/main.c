/* rpma-recv: exposes PMem log pools to rpma-send senders over RDMA: one
 * POOL, named logs (--log NAME=POOL), or those of a configuration file;
 * or checks such a configuration (--check-config) and exits. */
#include "check_config.h"
#include "cli/count.h"
#include "cli/duration.h"
#include "cli/exit_code.h"
#include "cli/log.h"
#include "cli/signals.h"
#include "cli/size.h"
#include "error.h"
#include "info.h"
#include "service.h"
#include "settings.h"

#include <argp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *argp_program_version = "rpma-recv " RS_VERSION;
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
	OPT_DIRECT_WRITE = 0x100,
	OPT_STAGING_SLOT,
	OPT_CREDITS,
	OPT_ONCE,
	OPT_INFO,
	OPT_ALLOW,
	OPT_AUTH_KEY,
	OPT_BUSY_POLL,
	OPT_PEER_TIMEOUT,
	OPT_LOG,
	OPT_CONFIG,
	OPT_MAX_SENDERS,
	OPT_CHECK_CONFIG,
};

#define RECV_DEFAULT_CONFIG "/etc/rpma-ship/rpma-recv.conf"

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
     "if good, 2 and FILE:LINE if not; opens no pool, needs no RDMA device",
     0},
    {"max-senders", OPT_MAX_SENDERS, "N", 0,
     "Senders connected at once, over all logs (default 64); more are "
     "refused",
     0},
    {"create", 'c', "SIZE", 0,
     "Create POOL with SIZE bytes (e.g. 64M) if it does not exist; on a "
     "devdax device any SIZE takes the whole device",
     0},
    {"listen", 'l', "ADDR[:PORT]", 0,
     "Listen on this address of an RDMA device (default: all, port 7204)", 0},
    {"allow", 'a', "CIDR", 0,
     "Accept senders only from this address range (e.g. 192.0.2.0/24, "
     "fe80::/10, or one address); repeatable. Others are refused before any "
     "memory is registered or described",
     0},
    {"auth-key", OPT_AUTH_KEY, "FILE", 0,
     "Require senders to prove this shared secret (16 to 4096 bytes, a file "
     "only its owner can read) before any memory is described to them",
     0},
    {"direct-write-to-pmem", OPT_DIRECT_WRITE, 0, 0,
     "Declare that RDMA writes land directly in PMem (DDIO off), which "
     "allows the apm method on byte-addressable PMem",
     0},
    {"staging-slot", OPT_STAGING_SLOT, "SIZE", 0,
     "Size of one slot of the staged method's DRAM ring, the largest "
     "staged batch (default 1M)",
     0},
    {"credits", OPT_CREDITS, "N", 0,
     "Batches a sender may have in flight, and staging ring slots "
     "(default 8)",
     0},
    {"info", 'i', 0, 0,
     "Print the pool's size, use and UUID, then exit (needs no RDMA device)",
     0},
    {"busy-poll", OPT_BUSY_POLL, 0, 0,
     "Spin on the completion queue while serving a sender instead of "
     "sleeping: lowest commit latency, at the cost of a busy core",
     0},
    {"peer-timeout", OPT_PEER_TIMEOUT, "SECONDS", 0,
     "End the session of a sender not heard from for this long (e.g. 10, "
     "30s, 2m; default 10 s), so a sender cut off by a network outage does "
     "not hold the log; an idle sender keeps its session with keepalives",
     0},
    {"once", OPT_ONCE, 0, 0, "Exit after the first sender disconnects", 0},
    {"quiet", 'q', 0, 0, "Print errors only", 0},
    {"verbose", 'v', 0, 0, "Print details of each connection", 0},
    {0},
};

#define RECV_CLI_LOGS_MAX 64

/* A global setting given on the command line, over the file's. */
struct recv_overrides {
	bool listen, credits, staging_slot, peer_timeout, max_senders;
	bool busy_poll;
};

struct recv_args {
	struct recv_settings cli; /* globals given here, and no logs */
	struct recv_overrides set;
	/* Logs given here and what applies to them. */
	const char *pool;
	const char *named[RECV_CLI_LOGS_MAX]; /* NAME=POOL */
	unsigned nnamed;
	struct recv_log_settings log; /* create, allow, key, direct write */
	const char *config;
	bool check;		/* --check-config */
	const char *check_file; /* --check-config=FILE */
	bool once;
	enum rs_log_level level;
	bool info;
};

static void parse_size_option(int key, char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	uint64_t v;
	if (key == 'c') {
		if (rs_size_parse(arg, &v) || v == 0)
			argp_error(state,
				   "--create: '%s' is not a size like "
				   "64M or 1G",
				   arg);
		a->log.create_size = v;
		return;
	}
	if (rs_size_parse(arg, &v) || v < RECV_STAGING_SLOT_MIN ||
	    v > RECV_STAGING_SLOT_MAX)
		argp_error(state,
			   "--staging-slot: '%s' must be a size from 4K to 1G",
			   arg);
	a->cli.staging_slot = (uint32_t)v;
	a->set.staging_slot = true;
}

static void parse_count_option(int key, char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	uint64_t v = 0;
	if (key == OPT_CREDITS) {
		if (!rs_count_parse(arg, 1, RECV_CREDITS_MAX, &v))
			argp_error(state, "--credits: '%s' must be 1 to %d",
				   arg, RECV_CREDITS_MAX);
		a->cli.credits = (uint16_t)v;
		a->set.credits = true;
		return;
	}
	if (!rs_count_parse(arg, 1, RECV_MAX_SENDERS_MAX, &v))
		argp_error(state, "--max-senders: '%s' must be 1 to %d", arg,
			   RECV_MAX_SENDERS_MAX);
	a->cli.max_senders = (unsigned)v;
	a->set.max_senders = true;
}

static void parse_allow(char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	if (a->log.nallow == RECV_ALLOW_MAX)
		argp_error(state, "--allow: at most %d ranges", RECV_ALLOW_MAX);
	const char *why = rs_cidr_parse(arg, &a->log.allow[a->log.nallow]);
	if (why)
		argp_error(state, "--allow '%s': %s", arg, why);
	a->log.nallow++;
}

static void parse_peer_timeout(char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	uint64_t v;
	if (rs_duration_parse(arg, &v) || v < RECV_PEER_TIMEOUT_MIN_MS ||
	    v > RECV_PEER_TIMEOUT_MAX_MS)
		argp_error(state,
			   "--peer-timeout: '%s' must be 1 s to 1 hour, like "
			   "10, 30s or 2m",
			   arg);
	a->cli.peer_timeout_ms = (uint32_t)v;
	a->set.peer_timeout = true;
}

/* Options that take a value. Returns false for any other key. */
static bool parse_value(int key, char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	struct rs_error err = {0};
	switch (key) {
	case 'c':
	case OPT_STAGING_SLOT:
		parse_size_option(key, arg, state);
		return true;
	case OPT_CREDITS:
	case OPT_MAX_SENDERS:
		parse_count_option(key, arg, state);
		return true;
	case 'l':
		if (rs_endpoint_parse(arg, &a->cli.listen, &err))
			argp_error(state, "--listen '%s': %s", arg, err.msg);
		a->set.listen = true;
		return true;
	case 'a':
		parse_allow(arg, state);
		return true;
	case OPT_AUTH_KEY:
		snprintf(a->log.auth_key_path, sizeof(a->log.auth_key_path),
			 "%s", arg);
		return true;
	case OPT_PEER_TIMEOUT:
		parse_peer_timeout(arg, state);
		return true;
	case OPT_LOG:
		if (a->nnamed == RECV_CLI_LOGS_MAX)
			argp_error(state, "--log: at most %d",
				   RECV_CLI_LOGS_MAX);
		if (!strchr(arg, '='))
			argp_error(state,
				   "--log '%s': give NAME=POOL, e.g. "
				   "app=/mnt/pmem/app.pool",
				   arg);
		a->named[a->nnamed++] = arg;
		return true;
	case OPT_CONFIG:
		a->config = arg;
		return true;
	case OPT_CHECK_CONFIG:
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
	case OPT_DIRECT_WRITE:
		a->log.direct_write_to_pmem = true;
		break;
	case OPT_BUSY_POLL:
		a->cli.busy_poll = true;
		a->set.busy_poll = true;
		break;
	case 'i':
		a->info = true;
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

static int add_cli_log(const struct recv_args *a, const char *name,
		       const char *pool, struct recv_settings *s,
		       struct rs_error *err)
{
	struct recv_log_settings *log = malloc(sizeof(*log));
	if (!log)
		return rs_error_set(err, RS_E_NOMEM, 0, "out of memory");
	*log = a->log;
	snprintf(log->name, sizeof(log->name), "%s", name);
	snprintf(log->pool_path, sizeof(log->pool_path), "%s", pool);
	int rc = strlen(name) > RS_LOG_NAME_MAX
		     ? rs_error_set(err, RS_E_INVAL, 0,
				    "--log %s=%s: the name is longer than %d "
				    "characters; choose a shorter one",
				    name, pool, RS_LOG_NAME_MAX)
		     : recv_settings_add_log(s, log, err);
	memset(log, 0, sizeof(*log));
	free(log);
	return rc;
}

static int add_cli_logs(const struct recv_args *a, struct recv_settings *s,
			struct rs_error *err)
{
	if (a->pool && add_cli_log(a, "", a->pool, s, err))
		return -1;
	for (unsigned i = 0; i < a->nnamed; i++) {
		char name[64];
		const char *eq = strchr(a->named[i], '=');
		snprintf(name, sizeof(name), "%.*s", (int)(eq - a->named[i]),
			 a->named[i]);
		if (add_cli_log(a, name, eq + 1, s, err))
			return -1;
	}
	return 0;
}

static void apply_overrides(const struct recv_args *a, struct recv_settings *s)
{
	const struct recv_settings *c = &a->cli;
	if (a->set.listen)
		s->listen = c->listen;
	if (a->set.credits)
		s->credits = c->credits;
	if (a->set.staging_slot)
		s->staging_slot = c->staging_slot;
	if (a->set.peer_timeout)
		s->peer_timeout_ms = c->peer_timeout_ms;
	if (a->set.max_senders)
		s->max_senders = c->max_senders;
	if (a->set.busy_poll)
		s->busy_poll = c->busy_poll;
}

/* recv_settings_source: at start and on each SIGHUP. */
static int build_settings(void *ctx, struct recv_settings *s,
			  struct rs_error *err)
{
	const struct recv_args *a = ctx;
	if (add_cli_logs(a, s, err))
		return -1;
	if (a->config && recv_settings_load(a->config, s, err))
		return -1;
	apply_overrides(a, s);
	return 0;
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

static int load_cli_key(struct recv_args *a)
{
	if (!a->log.auth_key_path[0])
		return 0;
	struct rs_error err = {0};
	if (rs_auth_key_load(a->log.auth_key_path, &a->log.auth_key, &err)) {
		rs_err("%s", err.msg);
		return -1;
	}
	return 0;
}

/* The same settings as the service's, checked instead of served. */
static int check_config(struct recv_args *a)
{
	int rc = RS_EXIT_USAGE;
	if (!load_cli_key(a)) {
		struct recv_settings_source source = {a, build_settings};
		rc = recv_check_config(&source);
	}
	memset(&a->log.auth_key, 0, sizeof(a->log.auth_key));
	return rc;
}

int main(int argc, char **argv)
{
	static struct recv_args a; /* large: keys, paths */
	a.level = RS_LOG_NORMAL;
	recv_settings_init(&a.cli);
	a.log.methods = RS_METHOD_ALL;

	/* argp exits with argp_err_exit_status on usage errors. */
	argp_err_exit_status = RS_EXIT_USAGE;
	struct argp argp = {options, parse_opt, args_doc, doc, 0, 0, 0};
	argp_parse(&argp, argc, argv, 0, 0, &a);
	rs_log_init("rpma-recv", a.level);
	if (a.info)
		return recv_info_print(a.pool);
	if (a.check)
		return check_config(&a);

	rs_signals_install(on_stop_signal);
	install_reload_signal();
	if (load_cli_key(&a))
		return RS_EXIT_USAGE;
	struct recv_settings_source source = {&a, build_settings};
	int rc = recv_service_run(&source, a.once);
	memset(&a.log.auth_key, 0, sizeof(a.log.auth_key));
	return rc;
}
