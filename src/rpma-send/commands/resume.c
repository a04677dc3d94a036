#include "commands/resume.h"

#include "cli/log.h"
#include "commands/resume_follow.h"
#include "common/stats.h"
#include "common/stop.h"
#include "common/stop_for_tests.h"
#include "connect/backoff.h"
#include "error.h"
#include "input/input.h"
#include "verify/verifier.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The prefix check is a connection of the run like the stream's: with
 * --retry, a lost link, an absent or busy receiver is tried again. Each
 * try hashes FILE from its first byte: a check cut off half-way has read
 * part of it. */
static int verify_with_retries(const struct ship_config *cfg,
			       const struct verify_config *vc,
			       struct send_input *in, struct verify_result *r)
{
	unsigned backoff = SEND_BACKOFF_FIRST_MS;
	for (unsigned attempt = 0;; attempt++) {
		if (lseek(in->fd, 0, SEEK_SET) < 0) {
			rs_err("cannot seek in %s: %s", in->name,
			       strerror(errno));
			return RS_E_IO;
		}
		int rc = verify_run(vc, in->fd, in->name, r);
		if (!RS_ERRC_TRANSIENT(rc) || attempt >= cfg->retries ||
		    send_stop_requested)
			return rc;
		rs_info("retrying the check of what the log holds in %u ms (%u "
			"of %u)",
			backoff, attempt + 1, cfg->retries);
		send_stats_sleep_ms(backoff);
		backoff = send_backoff_next(backoff);
	}
}

/* Learns how much of FILE the log already holds, or why it cannot resume. */
static int check_prefix(const struct ship_config *cfg, struct send_input *in,
			uint64_t *held)
{
	struct verify_config vc = resume_verify_config(cfg);
	vc.whole_log = true;
	vc.local_max = UINT64_MAX;
	struct verify_result r;
	int rc = verify_with_retries(cfg, &vc, in, &r);
	if (rc)
		return rc;
	switch (r.outcome) {
	case VERIFY_SAME:
	case VERIFY_REMOTE_SHORTER:
		*held = r.remote_length;
		return 0;
	case VERIFY_DIFFERENT:
		rs_err("cannot resume: the remote log differs from %s at byte "
		       "offset %llu; start over with --truncate",
		       in->name, (unsigned long long)r.first_difference);
		return RS_E_DIVERGED;
	default:
		rs_err("cannot resume: the remote log holds %llu bytes, more "
		       "than %s's %llu; start over with --truncate",
		       (unsigned long long)r.remote_length, in->name,
		       (unsigned long long)r.local_length);
		return RS_E_DIVERGED;
	}
}

#define RESUME_RECHECKS 3 /* a log that grew since it was checked */

/* Checks what the log holds of FILE (*checked: it is a prefix), then
 * sends the rest. */
static int check_and_send(const struct ship_config *cfg, struct send_input *in,
			  struct ship_result *result, bool *checked)
{
	uint64_t held = 0;
	int rc = check_prefix(cfg, in, &held);
	*checked = rc == 0;
	/* between the check and the send: a test makes the log grow here */
	if (!rc)
		send_stop_for_tests_once("resume-checked");
	if (!rc && lseek(in->fd, (off_t)held, SEEK_SET) < 0) {
		rs_err("cannot seek in %s: %s", in->name, strerror(errno));
		rc = RS_E_IO;
	}
	if (rc)
		return rc;
	rs_info("the remote log holds the first %llu bytes of %s; sending "
		"the rest",
		(unsigned long long)held, in->name);
	struct ship_config resumed = *cfg;
	resumed.truncate = false;
	resumed.expect_offset = true;
	resumed.expected_used = held;
	in->pos = (off_t)held;
	return ship_run(&resumed, in, result);
}

int resume_run(const struct ship_config *cfg, const char *file,
	       struct ship_result *result)
{
	/* Refused before it is opened: a FIFO would wait for a writer. */
	struct stat st;
	if (strcmp(file, "-") != 0 && stat(file, &st) == 0 &&
	    !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		rs_err("--resume needs a regular FILE to check and seek in");
		return RS_E_INVAL;
	}
	struct send_input in;
	struct rs_error err = {0};
	int rc = send_input_open(&in, file, &err);
	if (rc) {
		if (rc != RS_E_INTERRUPTED) /* main() says that */
			rs_err("%s", err.msg);
		return rc;
	}
	if (!in.is_regular) {
		rs_err("--resume needs a regular FILE to check and seek in");
		send_input_close(&in);
		return RS_E_INVAL;
	}
	/* A log that grew between the check and the send (the late commits
	 * of a sender that died, applied once its receiver got to them) is
	 * checked again, with --retry: what it holds may still be FILE's. */
	bool checked;
	rc = check_and_send(cfg, &in, result, &checked);
	for (unsigned n = 0;
	     checked && rc == RS_E_DIVERGED && result->committed == 0 &&
	     cfg->retries && n < RESUME_RECHECKS && !send_stop_requested;
	     n++) {
		rs_info("checking again what the log holds of %s", file);
		memset(result, 0, sizeof(*result));
		rc = check_and_send(cfg, &in, result, &checked);
	}
	send_input_close(&in);
	return rc;
}

int resume_follow_run(const struct ship_config *cfg, const char *file,
		      uint64_t rotate_wait_ms, struct ship_result *result)
{
	struct send_input in;
	struct rs_error err = {0};
	int rc = send_input_follow(&in, file, rotate_wait_ms, &err);
	if (rc) {
		rs_err("%s", err.msg);
		return rc;
	}
	struct resume_follow_plan plan;
	rc = resume_follow_find(cfg, file, &plan);
	if (rc) {
		send_input_close(&in);
		return rc;
	}
	const char *paths[FOLLOW_FILES_MAX];
	for (int i = 0; i < plan.npaths; i++)
		paths[i] = plan.paths[i];
	if (!send_input_follow_from(&in, paths, plan.npaths, plan.from)) {
		rs_err("cannot open %s again to go on from byte %llu",
		       plan.paths[0], (unsigned long long)plan.from);
		send_input_close(&in);
		return RS_E_IO;
	}
	struct ship_config resumed = *cfg;
	resumed.truncate = false;
	resumed.expect_offset = true;
	resumed.expected_used = plan.held;
	rc = ship_run(&resumed, &in, result);
	send_input_close(&in);
	return rc;
}
