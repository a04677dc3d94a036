/* What the options and operands say together. */
#include "options/check.h"

#include "error.h"
#include "options/args.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

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

/* The options that go with another one only. */
static void check_companions(struct argp_state *state,
			     const struct send_args *a)
{
	if (a->send_first && !a->verify)
		argp_error(state, "--send goes with --verify");
	if (a->from_given && !a->fetch)
		argp_error(state, "--from goes with --fetch");
	if (a->rotate_wait_given && (!a->follow || a->fetch))
		argp_error(state, "--rotate-wait goes with --follow of a FILE "
				  "being sent");
	if (a->stop_wait_given && (!a->follow || a->fetch))
		argp_error(state, "--stop-wait goes with --follow of a FILE "
				  "being sent");
	if (!a->fetch && a->resume && (a->verify || a->cfg.truncate))
		argp_error(state, "--resume goes without --verify and "
				  "--truncate");
}

void send_args_check(struct argp_state *state, struct send_args *a)
{
	check_companions(state, a);
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
