/* The rows of rpma-send's options, in --help's order, and the handlers of
 * those a field alone does not set. */
#include "options/table.h"

#include "cli/log.h"
#include "cli/option_value.h"
#include "common/send_config.h"
#include "error.h"
#include "input/follow.h"
#include "options/args.h"
#include "proto/method.h"
#include "verify/verifier.h"

#include <string.h>

/* ---- the handlers ---- */

static int set_method(void *owner, const char *arg, uint64_t value,
		      struct rs_error *err)
{
	struct send_args *a = owner;
	(void)value;
	if (rs_method_parse(arg, &a->cfg.method, 0))
		return rs_error_set(
		    err, RS_E_INVAL, 0,
		    "--method: '%s' is not apm, gpspm, staged or flush", arg);
	return 0;
}

static int set_truncate(void *owner, const char *arg, uint64_t value,
			struct rs_error *err)
{
	struct send_args *a = owner;
	(void)value;
	if (arg && strcmp(arg, "in-place"))
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--truncate='%s': give --truncate, or "
				    "--truncate=in-place to rewind the log "
				    "first",
				    arg);
	a->cfg.truncate = true;
	a->cfg.truncate_in_place = arg != 0;
	return 0;
}

static int set_rotate_wait(void *owner, const char *arg, uint64_t value,
			   struct rs_error *err)
{
	struct send_args *a = owner;
	(void)arg, (void)value, (void)err;
	a->rotate_wait_given = true;
	return 0;
}

static int set_stop_wait(void *owner, const char *arg, uint64_t value,
			 struct rs_error *err)
{
	struct send_args *a = owner;
	(void)arg, (void)value, (void)err;
	a->stop_wait_given = true;
	return 0;
}

static int set_verify(void *owner, const char *arg, uint64_t value,
		      struct rs_error *err)
{
	struct send_args *a = owner;
	(void)value;
	a->verify = true;
	if (arg && verify_method_parse(arg, &a->verify_method))
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--verify: '%s' is not hash or read", arg);
	return 0;
}

/* --from=BYTE|end: where a fetch starts. */
static int set_from(void *owner, const char *arg, uint64_t value,
		    struct rs_error *err)
{
	struct send_args *a = owner;
	(void)value;
	a->from_given = true;
	a->from.at_end = strcmp(arg, "end") == 0;
	if (a->from.at_end)
		return 0;
	return cli_option_check_count("--from", arg, 0, UINT64_MAX,
				      &a->from.from, err);
}

static int set_progress(void *owner, const char *arg, uint64_t value,
			struct rs_error *err)
{
	struct send_args *a = owner;
	(void)value;
	if (arg && strcmp(arg, "always") != 0 && strcmp(arg, "commits") != 0)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--progress: '%s' is not always or commits",
				    arg);
	a->cfg.progress = true;
	a->cfg.progress_forced = arg != 0;
	a->cfg.progress_commits = arg && !strcmp(arg, "commits");
	return 0;
}

/* ---- the rows ---- */

#define FIELD(member)                                                          \
	.offset = offsetof(struct send_args, member),                          \
	.size = sizeof(((struct send_args *)0)->member)
#define SHIP SEND_MODE_SHIP
#define VERIFY SEND_MODE_VERIFY
#define FETCH SEND_MODE_FETCH
#define ALL SEND_MODE_ALL
#define BARE_MS "; a bare number is milliseconds"

static const struct cli_option rows[] = {
    {.name = "method",
     .arg = "apm|gpspm|staged|flush",
     .type = CLI_OPTION_TEXT,
     .modes = SHIP | VERIFY,
     .handler = set_method,
     .help = "Persistence method; default: the first the receiver allows "
	     "of flush, apm, gpspm and staged"},
    {.name = "batch",
     .arg = "SIZE",
     .type = CLI_OPTION_SIZE,
     .min = 1,
     .max = 1u << 30,
     .has_default = true,
     .def = 1u << 20,
     .default_in_help = true,
     .modes = SHIP | VERIFY,
     FIELD(cfg.batch_size),
     .help = "Largest batch committed at once"},
    {.name = "depth",
     .arg = "N",
     .type = CLI_OPTION_COUNT,
     .min = 1,
     .max = SHIP_DEPTH_MAX,
     .has_default = true,
     .def = SHIP_DEPTH_AUTO,
     .modes = SHIP | VERIFY,
     FIELD(cfg.depth),
     .help = "Batches in flight at once, at most what the receiver allows "
	     "(default: about 8 MiB in flight, at least 4 batches)"},
    {.name = "flush-interval",
     .arg = "TIME",
     .type = CLI_OPTION_DURATION,
     .min = 0,
     .max = 60000,
     .has_default = true,
     .def = 5,
     .default_in_help = true,
     .default_note = BARE_MS,
     .modes = SHIP | VERIFY,
     FIELD(cfg.flush_interval_ms),
     .help = "Commit a partial batch when the input has been quiet this "
	     "long while earlier batches are in flight; with none in flight "
	     "it is committed at once"},
    {.name = "truncate",
     .arg = "in-place",
     .arg_optional = true,
     .type = CLI_OPTION_TEXT,
     .modes = SHIP | VERIFY,
     .handler = set_truncate,
     .help = "Replace the remote log's content instead of appending: the "
	     "new content is written beside the old, which the log keeps "
	     "until every byte is committed (a failed run leaves it); "
	     "=in-place rewinds the log first, for a pool too small to hold "
	     "both (its content is lost if the run fails)"},
    {.name = "timeout",
     .arg = "TIME",
     .type = CLI_OPTION_DURATION,
     .min = 1,
     .max = 600000,
     .has_default = true,
     .def = 5000,
     .default_in_help = true,
     .default_note = BARE_MS,
     .modes = ALL,
     FIELD(cfg.connect_timeout_ms),
     .help = "Give up connecting after this long"},
    {.name = "follow",
     .short_flag = 'f',
     .type = CLI_OPTION_FLAG,
     .modes = SHIP | FETCH,
     FIELD(follow),
     .help = "Keep reading FILE as it grows, across rotation and "
	     "truncation, until SIGINT or SIGTERM: a rotated file is read "
	     "until it has been quiet for --rotate-wait, then the new one "
	     "from its start; a file truncated in place is read again from "
	     "its start, after what its rotated copy holds that was not read "
	     "yet"},
    {.name = "rotate-wait",
     .arg = "TIME",
     .type = CLI_OPTION_DURATION,
     .min = 0,
     .max = 3600000,
     .has_default = true,
     .def = FOLLOW_ROTATE_WAIT_DEFAULT_MS,
     .default_in_help = true,
     .default_note = "; 0: at once, as tail -F",
     .modes = SHIP,
     FIELD(rotate_wait_ms),
     .handler = set_rotate_wait,
     .help = "With --follow: how long a rotated file must be quiet before "
	     "the new one is read"},
    {.name = "stop-wait",
     .arg = "TIME",
     .type = CLI_OPTION_DURATION,
     .min = 0,
     .max = 3600000,
     .has_default = true,
     .def = 5000,
     .default_in_help = true,
     .modes = SHIP,
     FIELD(cfg.stop_wait_ms),
     .handler = set_stop_wait,
     .help = "With --follow: how long SIGINT or SIGTERM leaves to ship what "
	     "the files hold then; what is left unread is named at the end "
	     "(exit 9)"},
    {.name = "resume",
     .type = CLI_OPTION_FLAG,
     .modes = SHIP | FETCH,
     FIELD(resume),
     .help = "Continue a partly shipped FILE: check by hashes that the "
	     "remote log is a prefix of FILE, then send only the rest (exit "
	     "6 if it is not); with --follow, go on where the log's last "
	     "bytes end in FILE or in a copy rotated beside it while the "
	     "sender was down"},
    {.name = "auth-key",
     .arg = "FILE",
     .type = CLI_OPTION_TEXT,
     .modes = ALL,
     FIELD(auth_key_path),
     .help = "Prove this shared secret to a receiver that requires one (the "
	     "same file as its --auth-key, readable by its owner only)"},
    {.name = "retry",
     .arg = "N",
     .type = CLI_OPTION_COUNT,
     .min = 0,
     .max = 1000000,
     .has_default = true,
     .def = 0,
     .modes = ALL,
     FIELD(cfg.retries),
     .help = "On a lost connection, a restarted or busy receiver, reconnect "
	     "up to N times (back-off from 0.1 s to 5 s) and resend what was "
	     "not committed; with several replicas each reconnects on its own "
	     "while the others stream on"},
    {.name = "quorum",
     .arg = "K",
     .type = CLI_OPTION_COUNT,
     .min = 1,
     .max = RS_TARGETS_MAX,
     .has_default = true,
     .def = 0, /* all */
     .modes = SHIP | VERIFY,
     FIELD(cfg.quorum),
     .help = "With several replicas: a batch is committed once K of them "
	     "have it persistent (default: all); a replica lost for good is "
	     "dropped while K remain, and the exit status is then 7"},
    {.name = "verify",
     .arg = "hash|read",
     .arg_optional = true,
     .type = CLI_OPTION_TEXT,
     .modes = VERIFY,
     .handler = set_verify,
     .help = "Compare FILE with the remote log instead of sending, like "
	     "cmp; give FILE before HOST. hash (default): the receiver hashes "
	     "1 MiB chunks; read: read the replica back with RDMA reads"},
    {.name = "fetch",
     .type = CLI_OPTION_FLAG,
     .modes = FETCH,
     FIELD(fetch),
     .help = "Read the remote log back instead of sending: its committed "
	     "bytes into FILE (or standard output with '-' or no FILE), from "
	     "its oldest byte; with --follow, go on as it grows until SIGINT "
	     "or SIGTERM; with --resume, append to FILE only what it lacks, "
	     "after checking by hashes that it is a copy of the log's first "
	     "bytes"},
    {.name = "from",
     .arg = "BYTE|end",
     .type = CLI_OPTION_TEXT,
     .modes = FETCH,
     .handler = set_from,
     .help = "With --fetch: start at this byte of the log, or at its end "
	     "(only what comes next, as tail -f)"},
    {.name = "send",
     .type = CLI_OPTION_FLAG,
     .modes = VERIFY,
     FIELD(send_first),
     .help = "With --verify: ship FILE first (appending), then verify what "
	     "was shipped"},
    {.name = "busy-poll",
     .type = CLI_OPTION_FLAG,
     .modes = SHIP | VERIFY,
     FIELD(cfg.busy_poll),
     .help = "Spin on the completion queue instead of sleeping: lowest "
	     "commit latency, at the cost of a busy core"},
    {.name = "progress",
     .arg = "always|commits",
     .arg_optional = true,
     .type = CLI_OPTION_TEXT,
     .modes = ALL,
     .handler = set_progress,
     .help = "Show bytes committed, rate and elapsed time on stderr while "
	     "running (only on a terminal, unless =always); =commits: one "
	     "line per commit instead, 'rpma-send: committed N input bytes', "
	     "N exact (for scripts)"},
    {.name = "stats",
     .type = CLI_OPTION_FLAG,
     .modes = ALL,
     FIELD(stats),
     .help = "Print one summary line at the end: bytes, batches, seconds, "
	     "MB/s and commit latency percentiles; with several replicas, one "
	     "more line for each (state, bytes, lag, its commit latency); then "
	     "where the run's time went, phase by phase (start, connect's "
	     "steps, streaming, teardown)"},
    {.name = "quiet",
     .short_flag = 'q',
     .type = CLI_OPTION_CONST,
     .def = RS_LOG_QUIET,
     .modes = ALL,
     FIELD(level),
     .help = "Print errors only"},
    {.name = "verbose",
     .short_flag = 'v',
     .type = CLI_OPTION_CONST,
     .def = RS_LOG_VERBOSE,
     .modes = ALL,
     FIELD(level),
     .help = "Print the negotiated method and sizes"},
};

_Static_assert(sizeof(rows) / sizeof(*rows) <= CLI_OPTION_ROWS_MAX,
	       "raise CLI_OPTION_ROWS_MAX");

const struct cli_option_table send_options = {
    rows, sizeof(rows) / sizeof(*rows), 0x100};
