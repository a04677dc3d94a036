/* rpma-recv: exposes one PMem log pool to rpma-send senders over RDMA. */
#include "cli/duration.h"
#include "cli/exit_code.h"
#include "cli/log.h"
#include "cli/signals.h"
#include "cli/size.h"
#include "error.h"
#include "info.h"
#include "service.h"

#include <argp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *argp_program_version = "rpma-recv " RS_VERSION;
const char *argp_program_bug_address = 0;

static const char doc[] =
    "Expose a PMem log pool (a libpmemlog pool on fsdax, devdax or a plain "
    "file) to rpma-send over RDMA. Serves one sender at a time and keeps "
    "running until SIGINT or SIGTERM.\v"
    "Exit status: 0 stopped by a signal or after --once; 2 bad option or "
    "the pool cannot be used; 3 the RDMA listener could not be set up.";

static const char args_doc[] = "POOL";

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
};

static const struct argp_option options[] = {
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
     "(default 4)",
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

struct recv_args {
	struct recv_config cfg;
	enum rs_log_level level;
	bool info;
	const char *auth_key_path;
	struct rs_auth_key auth_key;
};

/* Options that take a value. Returns false for any other key. */
static bool parse_value(int key, char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	uint64_t v;
	const char *why;
	struct rs_error err = {0};
	switch (key) {
	case 'c':
		if (rs_size_parse(arg, &v) || v == 0)
			argp_error(state,
				   "--create: '%s' is not a size like "
				   "64M or 1G",
				   arg);
		a->cfg.create_size = v;
		return true;
	case 'l':
		if (rs_endpoint_parse(arg, &a->cfg.listen, &err))
			argp_error(state, "--listen '%s': %s", arg, err.msg);
		return true;
	case OPT_STAGING_SLOT:
		if (rs_size_parse(arg, &v) || v < 4096 || v > (1u << 30))
			argp_error(state,
				   "--staging-slot: '%s' must be a "
				   "size from 4K to 1G",
				   arg);
		a->cfg.exposure.slot_size = (uint32_t)v;
		return true;
	case OPT_CREDITS:
		v = strtoull(arg, 0, 10);
		if (v < 1 || v > 64)
			argp_error(state, "--credits: '%s' must be 1 to 64",
				   arg);
		a->cfg.exposure.slots = (uint16_t)v;
		return true;
	case 'a':
		if (a->cfg.nallow == RECV_ALLOW_MAX)
			argp_error(state, "--allow: at most %d ranges",
				   RECV_ALLOW_MAX);
		why = rs_cidr_parse(arg, &a->cfg.allow[a->cfg.nallow]);
		if (why)
			argp_error(state, "--allow '%s': %s", arg, why);
		a->cfg.nallow++;
		return true;
	case OPT_AUTH_KEY:
		a->auth_key_path = arg;
		return true;
	case OPT_PEER_TIMEOUT:
		if (rs_duration_parse(arg, &v) || v < 1000 || v > 3600000)
			argp_error(state,
				   "--peer-timeout: '%s' must be 1 s to 1 "
				   "hour, like 10, 30s or 2m",
				   arg);
		a->cfg.peer_timeout_ms = (uint32_t)v;
		return true;
	default:
		return false;
	}
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct recv_args *a = state->input;
	if (parse_value(key, arg, state))
		return 0;
	switch (key) {
	case OPT_DIRECT_WRITE:
		a->cfg.exposure.direct_write_to_pmem = true;
		break;
	case OPT_BUSY_POLL:
		a->cfg.busy_poll = true;
		break;
	case 'i':
		a->info = true;
		break;
	case OPT_ONCE:
		a->cfg.once = true;
		break;
	case 'q':
		a->level = RS_LOG_QUIET;
		break;
	case 'v':
		a->level = RS_LOG_VERBOSE;
		break;
	case ARGP_KEY_ARG:
		if (a->cfg.pool_path)
			argp_error(state, "only one POOL can be served");
		a->cfg.pool_path = arg;
		break;
	case ARGP_KEY_END:
		if (!a->cfg.pool_path)
			argp_error(state, "missing POOL (a pmemlog pool file "
					  "or devdax device)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void on_stop_signal(int sig)
{
	(void)sig;
	recv_stop_requested = 1;
}

int main(int argc, char **argv)
{
	struct recv_args a;
	memset(&a, 0, sizeof(a));
	a.level = RS_LOG_NORMAL;
	rs_endpoint_parse(":" RS_DEFAULT_PORT, &a.cfg.listen, 0);
	a.cfg.exposure.slot_size = 1u << 20;
	a.cfg.exposure.slots = 4;
	a.cfg.peer_timeout_ms = 10000;

	/* argp exits with argp_err_exit_status on usage errors. */
	argp_err_exit_status = RS_EXIT_USAGE;
	struct argp argp = {options, parse_opt, args_doc, doc, 0, 0, 0};
	argp_parse(&argp, argc, argv, 0, 0, &a);
	rs_log_init("rpma-recv", a.level);

	rs_signals_install(on_stop_signal);

	struct rs_error err = {0};
	if (a.auth_key_path) {
		if (rs_auth_key_load(a.auth_key_path, &a.auth_key, &err)) {
			rs_err("%s", err.msg);
			return RS_EXIT_USAGE;
		}
		a.cfg.auth_key = &a.auth_key;
	}
	if (a.info)
		return recv_info_print(a.cfg.pool_path);
	return recv_service_run(&a.cfg);
}
