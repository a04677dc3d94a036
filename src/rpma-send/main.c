/* rpma-send: streams a file or a pipe into a remote PMem log over RDMA. */
#include "cli/count.h"
#include "cli/duration.h"
#include "cli/exit_code.h"
#include "cli/log.h"
#include "cli/signals.h"
#include "cli/size.h"
#include "cli/version.h"
#include "commands/fetch.h"
#include "commands/resume.h"
#include "commands/shipper.h"
#include "commands/verify.h"
#include "error.h"
#include "input/follow.h"
#include "input/input.h"
#include "send_exit_status.h"

#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *argp_program_version = RS_CLI_VERSION_LINE("rpma-send");
const char *argp_program_bug_address = 0;

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
    "stopped at which length); 20 interrupted by SIGINT or SIGTERM "
    "before the run's end (a pipe or --follow ends on the signal with 0, "
    "after committing what was read). With --verify: 0 same (on every "
    "replica listed), 1 different (the message names the replica), "
    "2 trouble, 20 interrupted.";

static const char args_doc[] =
    "HOST[:PORT][/NAME][,HOST2...] [FILE|-]\n--verify[=hash|read] FILE "
    "HOST[:PORT][/NAME][,HOST2...]\n--fetch HOST[:PORT][/NAME] [FILE|-]";

enum {
	OPT_METHOD = 0x100,
	OPT_BATCH,
	OPT_DEPTH,
	OPT_FLUSH_INTERVAL,
	OPT_TRUNCATE,
	OPT_TIMEOUT,
	OPT_PROGRESS,
	OPT_STATS,
	OPT_RETRY,
	OPT_FOLLOW,
	OPT_VERIFY,
	OPT_SEND,
	OPT_RESUME,
	OPT_AUTH_KEY,
	OPT_BUSY_POLL,
	OPT_QUORUM,
	OPT_FETCH,
	OPT_FROM,
	OPT_ROTATE_WAIT,
};

static const struct argp_option options[] = {
    {"method", OPT_METHOD, "apm|gpspm|staged|flush", 0,
     "Persistence method; default: the first the receiver allows of flush, "
     "apm, gpspm and staged",
     0},
    {"batch", OPT_BATCH, "SIZE", 0,
     "Largest batch committed at once (default 1M)", 0},
    {"depth", OPT_DEPTH, "N", 0,
     "Batches in flight at once, at most what the receiver allows "
     "(default: about 8 MiB in flight, at least 4 batches)",
     0},
    {"flush-interval", OPT_FLUSH_INTERVAL, "TIME", 0,
     "Commit a partial batch when the input has been quiet this long "
     "while earlier batches are in flight; with none in flight it is "
     "committed at once (default 5ms; a bare number is milliseconds)",
     0},
    {"truncate", OPT_TRUNCATE, "in-place", OPTION_ARG_OPTIONAL,
     "Replace the remote log's content instead of appending: the new "
     "content is written beside the old, which the log keeps until every "
     "byte is committed (a failed run leaves it); =in-place rewinds the log "
     "first, for a pool too small to hold both (its content is lost if the "
     "run fails)",
     0},
    {"timeout", OPT_TIMEOUT, "TIME", 0,
     "Give up connecting after this long (default 5s; a bare number is "
     "milliseconds)",
     0},
    {"follow", 'f', 0, 0,
     "Keep reading FILE as it grows, across rotation and truncation, until "
     "SIGINT or SIGTERM: a rotated file is read until it has been quiet "
     "for --rotate-wait, then the new one from its start; a file truncated "
     "in place is read again from its start, after what its rotated copy "
     "holds that was not read yet",
     0},
    {"rotate-wait", OPT_ROTATE_WAIT, "TIME", 0,
     "With --follow: how long a rotated file must be quiet before the new "
     "one is read (default 5s; 0: at once, as tail -F)",
     0},
    {"resume", OPT_RESUME, 0, 0,
     "Continue a partly shipped FILE: check by hashes that the remote log "
     "is a prefix of FILE, then send only the rest (exit 6 if it is not); "
     "with --follow, go on where the log's last bytes end in FILE or in a "
     "copy rotated beside it while the sender was down",
     0},
    {"auth-key", OPT_AUTH_KEY, "FILE", 0,
     "Prove this shared secret to a receiver that requires one (the same "
     "file as its --auth-key, readable by its owner only)",
     0},
    {"retry", OPT_RETRY, "N", 0,
     "On a lost connection, a restarted or busy receiver, reconnect up to N "
     "times (back-off from 0.1 s to 5 s) and resend what was not committed; "
     "with several replicas each reconnects on its own while the others "
     "stream on",
     0},
    {"quorum", OPT_QUORUM, "K", 0,
     "With several replicas: a batch is committed once K of them have it "
     "persistent (default: all); a replica lost for good is dropped while "
     "K remain, and the exit status is then 7",
     0},
    {"verify", OPT_VERIFY, "hash|read", OPTION_ARG_OPTIONAL,
     "Compare FILE with the remote log instead of sending, like cmp; give "
     "FILE before HOST. hash (default): the receiver hashes 1 MiB chunks; "
     "read: read the replica back with RDMA reads",
     0},
    {"fetch", OPT_FETCH, 0, 0,
     "Read the remote log back instead of sending: its committed bytes "
     "into FILE (or standard output with '-' or no FILE), from its oldest "
     "byte; with --follow, go on as it grows until SIGINT or SIGTERM; "
     "with --resume, append to FILE only what it lacks, after checking by "
     "hashes that it is a copy of the log's first bytes",
     0},
    {"from", OPT_FROM, "BYTE|end", 0,
     "With --fetch: start at this byte of the log, or at its end (only "
     "what comes next, as tail -f)",
     0},
    {"send", OPT_SEND, 0, 0,
     "With --verify: ship FILE first (appending), then verify what was "
     "shipped",
     0},
    {"busy-poll", OPT_BUSY_POLL, 0, 0,
     "Spin on the completion queue instead of sleeping: lowest commit "
     "latency, at the cost of a busy core",
     0},
    {"progress", OPT_PROGRESS, "always", OPTION_ARG_OPTIONAL,
     "Show bytes committed, rate and elapsed time on stderr while running "
     "(only on a terminal, unless =always)",
     0},
    {"stats", OPT_STATS, 0, 0,
     "Print one summary line at the end: bytes, batches, seconds, MB/s and "
     "commit latency percentiles; with several replicas, one more line for "
     "each (state, bytes, lag, its commit latency)",
     0},
    {"quiet", 'q', 0, 0, "Print errors only", 0},
    {"verbose", 'v', 0, 0, "Print the negotiated method and sizes", 0},
    {0},
};

struct send_args {
	struct ship_config cfg;
	bool stats;
	bool follow;
	uint64_t rotate_wait_ms; /* --rotate-wait */
	bool rotate_wait_given;
	bool verify;
	enum verify_method verify_method;
	bool send_first;
	bool resume;
	bool fetch;
	struct fetch_start from; /* --from */
	bool from_given;
	const char *auth_key_path;
	struct rs_auth_key auth_key;
	struct rs_target replicas[RS_TARGETS_MAX]; /* HOST1,HOST2,... */
	unsigned nreplicas;
	const char *args[2]; /* positionals: HOST FILE, or FILE HOST */
	int nargs;
	const char *input;
	enum rs_log_level level;
};

static uint64_t parse_number(struct argp_state *state, const char *opt,
			     const char *arg, uint64_t min, uint64_t max,
			     bool size)
{
	uint64_t v = 0;
	/* Digits only, as rpma-recv takes a count: strtoull would take
	 * ' 5', '+5' and '-0' too. */
	int bad = size ? rs_size_parse(arg, &v)
		       : !rs_count_parse(arg, 0, UINT64_MAX, &v);
	if (!bad && v >= min && v <= max)
		return v;
	if (size) {
		char lo[32], hi[32];
		rs_size_show(min, lo, sizeof(lo));
		rs_size_show(max, hi, sizeof(hi));
		argp_error(state,
			   "%s: '%s' must be a size from %s to %s (such as "
			   "64K or 1M)",
			   opt, arg, lo, hi);
	}
	argp_error(state, "%s: '%s' must be a number from %llu to %llu", opt,
		   arg, (unsigned long long)min, (unsigned long long)max);
	return v;
}

/* A duration as every duration of both programs is written (500ms, 5s,
 * 2m); a bare number is milliseconds here, as it always was. */
static uint64_t parse_duration(struct argp_state *state, const char *opt,
			       const char *arg, uint64_t min, uint64_t max)
{
	uint64_t v;
	if (rs_duration_parse_bare(arg, 1, &v) || v < min || v > max) {
		char lo[32], hi[32];
		rs_duration_show(min, lo, sizeof(lo));
		rs_duration_show(max, hi, sizeof(hi));
		argp_error(state,
			   "%s: '%s' must be a duration from %s to %s (such "
			   "as 500ms, 5s or 2m; a bare number is "
			   "milliseconds)",
			   opt, arg, lo, hi);
	}
	return v;
}

/* Whether text shows as itself on one line, to be quoted in an error. */
static bool prints_plainly(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* Several receivers (HOST1,HOST2): a stream goes to all of them; --verify
 * checks them one after the other. */
static void check_replica_list(struct send_args *a, struct argp_state *state)
{
	if (a->cfg.quorum > a->nreplicas)
		argp_error(state, "--quorum %u: only %u replica%s listed",
			   a->cfg.quorum, a->nreplicas,
			   a->nreplicas == 1 ? " is" : "s are");
	if (a->nreplicas < 2)
		return;
	a->cfg.targets = a->replicas;
	a->cfg.ntargets = a->nreplicas;
	if (a->resume)
		argp_error(state,
			   "--resume checks one receiver: give one HOST, "
			   "or start the replicas over with --truncate");
	if (a->verify && strcmp(a->input, "-") == 0)
		argp_error(state, "--verify of several replicas reads FILE "
				  "once for each: give a FILE, not '-'");
}

/* Sending takes HOST [FILE]; verifying takes FILE HOST, like cmp. */
/* Operands given the other way round: `rpma-send backup.tar pmemhost` as
 * with scp and rsync, or --verify's FILE HOST given as HOST FILE. Said only
 * when the one that should be the file is not there and the other is. */
static bool operands_swapped(const char *should_be_host,
			     const char *should_be_file)
{
	struct stat st;
	return should_be_host && should_be_file &&
	       strcmp(should_be_host, "-") != 0 &&
	       strcmp(should_be_file, "-") != 0 &&
	       stat(should_be_host, &st) == 0 &&
	       stat(should_be_file, &st) != 0 && errno == ENOENT;
}

static void refuse_swapped(struct argp_state *state, const struct send_args *a)
{
	const char *host = a->verify ? a->args[1] : a->args[0];
	const char *file = a->verify ? a->args[0] : a->args[1];
	if (!operands_swapped(host, file) || !prints_plainly(host) ||
	    !prints_plainly(file))
		return;
	if (a->verify)
		argp_error(state,
			   "'%s' is a file and '%s' is not: --verify takes "
			   "FILE first, as cmp does (rpma-send --verify %s %s)",
			   host, file, host, file);
	argp_error(state,
		   "'%s' is a file and '%s' is not: rpma-send takes HOST "
		   "first, then FILE (rpma-send %s %s)",
		   host, file, file, host);
}

/* --fetch HOST [FILE|-]: what goes with it. */
static void check_fetch(struct argp_state *state, struct send_args *a)
{
	if (a->verify || a->send_first || a->cfg.truncate || a->cfg.quorum ||
	    a->cfg.method != RS_METHOD_AUTO)
		argp_error(state, "--fetch reads a log: it goes without "
				  "--verify, --send, --truncate, --quorum and "
				  "--method");
	if (a->from_given && a->resume)
		argp_error(state, "--fetch --resume starts where FILE ends: "
				  "give --from or --resume, not both");
	if (a->resume && (!a->args[1] || strcmp(a->args[1], "-") == 0))
		argp_error(state,
			   "--fetch --resume appends to a FILE: name it");
	if (a->nreplicas > 1)
		argp_error(state, "--fetch reads one log: give one HOST");
}

static void assign_positionals(struct argp_state *state, struct send_args *a)
{
	if (a->send_first && !a->verify)
		argp_error(state, "--send goes with --verify");
	if (a->from_given && !a->fetch)
		argp_error(state, "--from goes with --fetch");
	if (a->rotate_wait_given && (!a->follow || a->fetch))
		argp_error(state, "--rotate-wait goes with --follow of a FILE "
				  "being sent");
	if (!a->fetch && a->resume && (a->verify || a->cfg.truncate))
		argp_error(state, "--resume goes without --verify and "
				  "--truncate");
	refuse_swapped(state, a);
	const char *host = a->args[0];
	a->input = a->args[1];
	if (a->verify) {
		if (a->nargs < 2)
			argp_error(state, "--verify needs FILE and HOST");
		a->input = a->args[0];
		host = a->args[1];
	}
	if (!host)
		argp_error(state, "missing HOST (where rpma-recv runs)");
	struct rs_error err = {0};
	if (rs_target_list_parse(host, a->replicas, RS_TARGETS_MAX,
				 &a->nreplicas, &err))
		argp_error(state, "'%s': %s",
			   prints_plainly(host) ? host : "HOST", err.msg);
	a->cfg.remote = a->replicas[0];
	if (a->fetch)
		check_fetch(state, a);
	check_replica_list(a, state);
}

/* --from=BYTE|end: where a fetch starts. */
static void parse_from(struct argp_state *state, struct send_args *a,
		       const char *arg)
{
	a->from_given = true;
	a->from.at_end = strcmp(arg, "end") == 0;
	if (!a->from.at_end)
		a->from.from =
		    parse_number(state, "--from", arg, 0, UINT64_MAX, false);
}

static void parse_method(struct argp_state *state, struct send_args *a,
			 const char *arg)
{
	if (rs_method_parse(arg, &a->cfg.method, 0))
		argp_error(state,
			   "--method: '%s' is not apm, gpspm, staged or flush",
			   arg);
}

static void parse_progress(struct argp_state *state, struct send_args *a,
			   const char *arg)
{
	if (arg && strcmp(arg, "always") != 0)
		argp_error(state, "--progress takes no value but 'always'");
	a->cfg.progress = true;
	a->cfg.progress_forced = arg != 0;
}

/* Options that take a value. Returns false for any other key. */
static bool parse_value(int key, char *arg, struct argp_state *state)
{
	struct send_args *a = state->input;
	switch (key) {
	case OPT_METHOD:
		parse_method(state, a, arg);
		return true;
	case OPT_BATCH:
		a->cfg.batch_size = (uint32_t)parse_number(
		    state, "--batch", arg, 1, 1u << 30, true);
		return true;
	case OPT_DEPTH:
		a->cfg.depth = (uint16_t)parse_number(state, "--depth", arg, 1,
						      SHIP_DEPTH_MAX, false);
		return true;
	case OPT_FLUSH_INTERVAL:
		a->cfg.flush_interval_ms = (int)parse_duration(
		    state, "--flush-interval", arg, 0, 60000);
		return true;
	case OPT_ROTATE_WAIT:
		a->rotate_wait_ms =
		    parse_duration(state, "--rotate-wait", arg, 0, 3600000);
		a->rotate_wait_given = true;
		return true;
	case OPT_TIMEOUT:
		a->cfg.connect_timeout_ms =
		    (int)parse_duration(state, "--timeout", arg, 1, 600000);
		return true;
	case OPT_PROGRESS:
		parse_progress(state, a, arg);
		return true;
	case OPT_VERIFY:
		a->verify = true;
		if (arg && verify_method_parse(arg, &a->verify_method))
			argp_error(state, "--verify: '%s' is not hash or read",
				   arg);
		return true;
	case OPT_AUTH_KEY:
		a->auth_key_path = arg;
		return true;
	case OPT_FROM:
		parse_from(state, a, arg);
		return true;
	case OPT_RETRY:
		a->cfg.retries = (unsigned)parse_number(state, "--retry", arg,
							0, 1000000, false);
		return true;
	case OPT_QUORUM:
		a->cfg.quorum = (unsigned)parse_number(
		    state, "--quorum", arg, 1, RS_TARGETS_MAX, false);
		return true;
	default:
		return false;
	}
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct send_args *a = state->input;
	if (parse_value(key, arg, state))
		return 0;
	switch (key) {
	case OPT_TRUNCATE:
		if (arg && strcmp(arg, "in-place"))
			argp_error(
			    state,
			    "--truncate='%s': give --truncate, or "
			    "--truncate=in-place to rewind the log first",
			    arg);
		a->cfg.truncate = true;
		a->cfg.truncate_in_place = arg != 0;
		break;
	case 'f':
		a->follow = true;
		break;
	case OPT_SEND:
		a->send_first = true;
		break;
	case OPT_BUSY_POLL:
		a->cfg.busy_poll = true;
		break;
	case OPT_RESUME:
		a->resume = true;
		break;
	case OPT_FETCH:
		a->fetch = true;
		break;
	case OPT_STATS:
		a->stats = true;
		break;
	case 'q':
		a->level = RS_LOG_QUIET;
		break;
	case 'v':
		a->level = RS_LOG_VERBOSE;
		break;
	case ARGP_KEY_ARG:
		if (a->nargs == 2)
			argp_error(state, "give one FILE (or - for standard "
					  "input)");
		a->args[a->nargs++] = arg;
		break;
	case ARGP_KEY_END:
		assign_positionals(state, a);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

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
static uint64_t run_start_ns;

/* One machine-readable line; stats are asked for, so -q does not hide it.
 * MB/s is over the streaming time (first batch posted to last confirmed),
 * as perftest reports; total_seconds is the whole run, connecting and
 * closing included. */
static void print_stats(const struct ship_result *r)
{
	const struct send_stats *st = &r->stats;
	double secs = send_stats_streaming(st);
	fprintf(stderr,
		"rpma-send: stats: bytes=%llu batches=%llu seconds=%.3f "
		"MBps=%.2f commit_us_p50=%.1f commit_us_p90=%.1f "
		"commit_us_p99=%.1f method=%s total_seconds=%.3f\n",
		(unsigned long long)st->bytes, (unsigned long long)st->batches,
		secs, secs > 0 ? (double)st->bytes / secs / 1e6 : 0.0,
		send_stats_percentile(st, 0.50) / 1e3,
		send_stats_percentile(st, 0.90) / 1e3,
		send_stats_percentile(st, 0.99) / 1e3,
		rs_method_name(r->method),
		(double)(send_stats_now_ns() - run_start_ns) / 1e9);
	for (unsigned i = 0; r->nreplicas > 1 && i < r->nreplicas; i++) {
		const struct ship_replica_result *rr = &r->replicas[i];
		fprintf(stderr,
			"rpma-send: stats: replica=%s state=%s bytes=%llu "
			"lag=%llu commit_us_p50=%.1f commit_us_p90=%.1f "
			"commit_us_p99=%.1f method=%s\n",
			rr->label, rr->state, (unsigned long long)rr->committed,
			(unsigned long long)rr->lag,
			send_stats_percentile(&rr->stats, 0.50) / 1e3,
			send_stats_percentile(&rr->stats, 0.90) / 1e3,
			send_stats_percentile(&rr->stats, 0.99) / 1e3,
			rs_method_name(rr->method));
	}
}

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

int main(int argc, char **argv)
{
	struct send_args a;
	memset(&a, 0, sizeof(a));
	run_start_ns = send_stats_now_ns();
	a.level = RS_LOG_NORMAL;
	a.cfg.batch_size = 1u << 20;
	a.cfg.depth = SHIP_DEPTH_AUTO;
	a.cfg.flush_interval_ms = 5;
	a.cfg.connect_timeout_ms = 5000;
	a.rotate_wait_ms = FOLLOW_ROTATE_WAIT_DEFAULT_MS;

	argp_err_exit_status = RS_EXIT_USAGE;
	struct argp argp = {options, parse_opt, args_doc, doc, 0, 0, 0};
	/* getopt names the program by argv[0], the path it was run by; our
	 * own lines say rpma-send: so do its. */
	argv[0] = (char *)"rpma-send";
	argp_parse(&argp, argc, argv, 0, 0, &a);
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

	struct ship_result result;
	memset(&result, 0, sizeof(result));
	if (a.resume && a.follow) {
		rc = resume_follow_run(&a.cfg, a.input ? a.input : "-",
				       a.rotate_wait_ms, &result);
		return report_ship(&a, rc, &result);
	}
	if (a.resume) {
		rc = resume_run(&a.cfg, a.input ? a.input : "-", &result);
		return report_ship(&a, rc, &result);
	}
	struct send_input in;
	struct rs_error err = {0};
	const char *path = a.input ? a.input : "-";
	rc = a.follow ? send_input_follow(&in, path, a.rotate_wait_ms, &err)
		      : send_input_open(&in, path, &err);
	if (rc && send_stop_requested)
		return report_interrupted(0);
	if (rc) {
		rs_err("%s", err.msg);
		return exit_status_send(rc);
	}
	if (a.follow && access(path, F_OK) != 0)
		rs_info("%s does not exist yet; waiting for it to appear",
			path);
	rc = ship_run(&a.cfg, &in, &result);
	send_input_close(&in);
	return report_ship(&a, rc, &result);
}

/* The summary of a send, and the stats line when asked for; its exit
 * status. */
static int report_ship(const struct send_args *a, int rc,
		       const struct ship_result *r)
{
	if (!rc)
		rs_info("committed %llu bytes in %llu batch%s (%s); remote log "
			"%llu of %llu bytes used",
			(unsigned long long)r->committed,
			(unsigned long long)r->stats.batches,
			r->stats.batches == 1 ? "" : "es",
			rs_method_name(r->method),
			(unsigned long long)r->log_used,
			(unsigned long long)r->log_size);
	if (a->stats)
		print_stats(r);
	if (rc && send_stop_requested)
		return report_interrupted(r);
	return exit_status_send(rc);
}
