/* The rows of rpma-recv's options that are not settings, in --help's
 * order, and the handlers of those a field alone does not set. */
#include "options/recv_options.h"

#include "error.h"
#include "options/recv_args.h"

#include <string.h>

/* ---- the handlers ---- */

/* --log NAME=POOL: its settings are read when the logs are built. */
static int add_log(void *owner, const char *arg, uint64_t value,
		   struct rs_error *err)
{
	struct recv_args *a = owner;
	(void)value;
	if (a->nnamed == RECV_CLI_LOGS_MAX)
		return rs_error_set(err, RS_E_INVAL, 0, "--log: at most %d",
				    RECV_CLI_LOGS_MAX);
	/* An empty NAME would be the unnamed log of a bare POOL. */
	if (!strchr(arg, '=') || arg[0] == '=')
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--log '%s': give NAME=POOL, e.g. "
				    "app=/mnt/pmem/app.pool",
				    arg);
	a->named[a->nnamed++] = arg;
	return 0;
}

static int check_config_file(void *owner, const char *arg, uint64_t value,
			     struct rs_error *err)
{
	(void)owner, (void)value;
	if (!*arg)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--config: an empty FILE name; give the "
				    "configuration file");
	return 0;
}

static int set_check(void *owner, const char *arg, uint64_t value,
		     struct rs_error *err)
{
	struct recv_args *a = owner;
	(void)value;
	if (arg && !*arg)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--check-config: an empty FILE name; give "
				    "the configuration file, or no '='");
	a->check = true;
	return 0;
}

static int check_export_file(void *owner, const char *arg, uint64_t value,
			     struct rs_error *err)
{
	(void)owner, (void)value;
	if (!*arg)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--export: an empty FILE name; give a "
				    "file, or - for standard output");
	return 0;
}

/* ---- the rows ---- */

#define FIELD(member)                                                          \
	.offset = offsetof(struct recv_args, member),                          \
	.size = sizeof(((struct recv_args *)0)->member)

static const struct cli_option rows[] = {
    {.name = "log",
     .arg = "NAME=POOL",
     .type = CLI_OPTION_TEXT,
     .handler = add_log,
     .help = "Serve POOL as the log NAME, which senders reach as HOST/NAME "
	     "(repeatable; NAME: letters, digits, '.', '_', '-', up to 31)"},
    {.name = "config",
     .arg = "FILE",
     .type = CLI_OPTION_TEXT,
     FIELD(config),
     .handler = check_config_file,
     .help = "Read global settings and logs from FILE (rpma-recv.conf(5)); "
	     "options given here override its global settings"},
    {.name = "check-config",
     .arg = "FILE",
     .arg_optional = true,
     .type = CLI_OPTION_TEXT,
     FIELD(check_file),
     .handler = set_check,
     .help = "Check the configuration the service would run with, then "
	     "exit: FILE (or --check-config FILE), else --config's, else "
	     "with no --log " RECV_DEFAULT_CONFIG "; its lines, key files "
	     "and pools (each exists or may be created, readable and "
	     "writable by this user). 0 and one line if good, 2 and "
	     "FILE:LINE if not; writes to no pool (reads its header), needs "
	     "no RDMA device"},
    {.name = "info",
     .short_flag = 'i',
     .type = CLI_OPTION_FLAG,
     FIELD(info),
     .help = "Print the pool's size, use and UUID, and for a log a receiver "
	     "serves what it committed and refused (from its metrics file: "
	     "--metrics-file or the configuration's), then exit; writes "
	     "nothing, needs no RDMA device"},
    {.name = "export",
     .arg = "FILE",
     .type = CLI_OPTION_TEXT,
     FIELD(export_file),
     .handler = check_export_file,
     .help = "Write the log's committed content to FILE ('-': standard "
	     "output) and exit: its archive's files (--archive, or archive= "
	     "of --log NAME=POOL,...), then its pool, read by rpma-recv "
	     "itself (no PMDK tool); writes nothing to the pool, needs no "
	     "RDMA device"},
    {.name = "reload",
     .arg = "PID",
     .type = CLI_OPTION_COUNT,
     .min = 1,
     .max = INT32_MAX,
     FIELD(reload_pid),
     .help = "Ask the rpma-recv of process PID to reread its configuration "
	     "(SIGHUP) and wait until it has, every log it added open "
	     "(systemctl reload runs it): 0 done, 2 it refused the file and "
	     "keeps the one in force (its log says FILE:LINE) or no such "
	     "process, 3 it ended first"},
    {.name = "once",
     .type = CLI_OPTION_FLAG,
     FIELD(once),
     .help = "Exit after the first sender disconnects"},
    {.name = "quiet",
     .short_flag = 'q',
     .type = CLI_OPTION_CONST,
     .def = RS_LOG_QUIET,
     FIELD(level),
     .help = "Print errors only"},
    {.name = "verbose",
     .short_flag = 'v',
     .type = CLI_OPTION_CONST,
     .def = RS_LOG_VERBOSE,
     FIELD(level),
     .help = "Print details of each connection"},
};

_Static_assert(sizeof(rows) / sizeof(*rows) <= CLI_OPTION_ROWS_MAX,
	       "raise CLI_OPTION_ROWS_MAX");

const struct cli_option_table recv_options = {
    rows, sizeof(rows) / sizeof(*rows), 0x100};
