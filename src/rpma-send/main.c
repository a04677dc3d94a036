/* rpma-send: streams a file or a pipe into a remote PMem log over RDMA.
 * The program's shape: the command line read (options/: one row per
 * option), then one mode run, its result reported as an exit status. */
#include "cli/exit_code.h"
#include "cli/log.h"
#include "cli/proc_status.h"
#include "cli/signals.h"
#include "cli/version.h"
#include "commands/fetch.h"
#include "commands/resume.h"
#include "commands/ship_stats.h"
#include "commands/shipper.h"
#include "commands/verify.h"
#include "common/phases.h"
#include "common/stop.h"
#include "connect/connect.h"
#include "error.h"
#include "input/input.h"
#include "options/args.h"
#include "options/parse.h"
#include "send_exit_status.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *argp_program_version = RS_CLI_VERSION_LINE("rpma-send");
const char *argp_program_bug_address = 0;

static void on_stop_signal(int sig)
{
	send_stop_requested = sig;
}

/* A run a signal stopped before its end says so, and what it committed. */
static int report_interrupted(const struct ship_result *r)
{
	const char *sig = send_stop_requested == SIGTERM ? "SIGTERM" : "SIGINT";
	if (r)
		rs_err("interrupted by %s after committing %llu bytes", sig,
		       (unsigned long long)r->committed);
	else
		rs_err("interrupted by %s before sending anything", sig);
	return RS_EXIT_INTERRUPTED;
}

/* When the run began: total_seconds counts from here, so that a run that
 * fails before its stream starts reports its own few seconds. */
static uint64_t run_start_ns, exec_ns; /* main entered; the age then */

static int report_ship(const struct send_args *a, int rc,
		       const struct ship_result *r);

/* --auth-key FILE, read before anything connects. Returns 0 or its code,
 * reported. */
static int load_auth_key(struct send_args *a)
{
	if (!a->auth_key_path)
		return 0;
	struct rs_error err = {0};
	int rc = rs_auth_key_load(a->auth_key_path, &a->auth_key, &err);
	if (rc) {
		rs_err("%s", err.msg);
		return rc;
	}
	a->cfg.auth_key = &a->auth_key;
	return 0;
}

/* --fetch HOST [FILE]: the log's bytes out; a send's exit status. */
static int run_fetch(const struct send_args *a)
{
	struct fetch_command cmd = {
	    .fetch = {.remote = a->cfg.remote,
		      .timeout_ms = a->cfg.connect_timeout_ms,
		      .auth_key = a->cfg.auth_key,
		      .retries = a->cfg.retries,
		      .follow = a->follow,
		      .start = a->from,
		      .progress = a->cfg.progress,
		      .progress_forced = a->cfg.progress_forced},
	    .file = a->input ? a->input : "-",
	    .resume = a->resume,
	    .stats = a->stats};
	struct fetch_result r;
	int rc = fetch_command_run(&cmd, &r);
	if (rc == RS_E_INTERRUPTED) {
		rs_err("interrupted by %s after fetching %llu bytes",
		       send_stop_requested == SIGTERM ? "SIGTERM" : "SIGINT",
		       (unsigned long long)r.fetched);
		return RS_EXIT_INTERRUPTED;
	}
	return exit_status_send(rc);
}

/* --verify FILE HOST, optionally after --send: cmp's exit status. */
static int run_verify(const struct send_args *a)
{
	struct verify_command cmd = {
	    .verify = {.remote = a->cfg.remote,
		       .timeout_ms = a->cfg.connect_timeout_ms,
		       .auth_key = a->cfg.auth_key,
		       .method = a->verify_method,
		       .chunk = 1u << 20,
		       .depth =
			   a->cfg.depth ? a->cfg.depth : VERIFY_DEPTH_DEFAULT,
		       .all_ranges = a->level >= RS_LOG_VERBOSE,
		       .whole_log = true,
		       .local_max = UINT64_MAX},
	    .file = a->input,
	    .replicas = a->replicas,
	    .nreplicas = a->nreplicas,
	    .send_first = a->send_first,
	    .ship = &a->cfg,
	    .stats = a->stats,
	};
	bool same = false;
	int rc = verify_command_run(&cmd, &same);
	if (rc && send_stop_requested) {
		rs_err("interrupted by %s",
		       send_stop_requested == SIGTERM ? "SIGTERM" : "SIGINT");
		return RS_EXIT_INTERRUPTED;
	}
	return exit_status_verify(rc, same);
}

/* A stream, or --resume's (HOST [FILE]): a send's exit status. */
static int run_ship(struct send_args *a)
{
	struct ship_result result;
	memset(&result, 0, sizeof(result));
	const char *path = a->input ? a->input : "-";
	int rc;
	if (a->resume && a->follow) {
		rc = resume_follow_run(&a->cfg, path, a->rotate_wait_ms,
				       &result);
		return report_ship(a, rc, &result);
	}
	if (a->resume) {
		rc = resume_run(&a->cfg, path, &result);
		return report_ship(a, rc, &result);
	}
	struct send_input in;
	struct rs_error err = {0};
	rc = a->follow ? send_input_follow(&in, path, a->rotate_wait_ms, &err)
		       : send_input_open(&in, path, &err);
	if (rc && send_stop_requested)
		return report_interrupted(0);
	if (rc) {
		rs_err("%s", err.msg);
		return exit_status_send(rc);
	}
	if (a->follow && access(path, F_OK) != 0)
		rs_info("%s does not exist yet; waiting for it to appear",
			path);
	rc = ship_run(&a->cfg, &in, &result);
	send_input_close(&in);
	return report_ship(a, rc, &result);
}

int main(int argc, char **argv)
{
	struct send_args a;
	send_args_init(&a);
	run_start_ns = send_stats_now_ns();
	if (rs_proc_age_ns(&exec_ns))
		exec_ns = 0;

	argp_err_exit_status = RS_EXIT_USAGE;
	/* getopt names the program by argv[0], the path it was run by; our
	 * own lines say rpma-send: so do its. */
	argv[0] = (char *)"rpma-send";
	argp_parse(send_options_argp(), argc, argv, 0, 0, &a);
	rs_log_init("rpma-send", a.level);

	rs_signals_install(on_stop_signal);

	int rc = load_auth_key(&a);
	if (rc)
		return a.verify ? exit_status_verify(rc, false)
				: exit_status_send(rc);
	if (a.verify)
		return run_verify(&a);
	if (a.fetch)
		return run_fetch(&a);
	return run_ship(&a);
}

/* The summary of a send, and the stats line when asked for; its exit
 * status. */
static int report_ship(const struct send_args *a, int rc,
		       const struct ship_result *r)
{
	/* -f ends on a signal by design: what it lost or left unread is
	 * its status, said already, not the signal. */
	bool followed = rc == RS_E_INPUT_LOST || rc == RS_E_INPUT_LEFT;
	if (!rc || followed)
		rs_info("committed %llu bytes in %llu batch%s (%s); remote log "
			"%llu of %llu bytes used",
			(unsigned long long)r->committed,
			(unsigned long long)r->stats.batches,
			r->stats.batches == 1 ? "" : "es",
			rs_method_name(r->method),
			(unsigned long long)r->log_used,
			(unsigned long long)r->log_size);
	if (a->stats) {
		struct send_phases times = {.exec_ns = exec_ns,
					    .main_ns = run_start_ns,
					    .session =
						send_connect_first_times()};
		ship_stats_print(stderr, r, &times);
	}
	if (rc && send_stop_requested && !followed)
		return report_interrupted(r);
	return exit_status_send(rc);
}
