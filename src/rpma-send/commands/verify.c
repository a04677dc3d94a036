#include "commands/verify.h"

#include "cli/log.h"
#include "error.h"
#include "input/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *method_name(enum verify_method m)
{
	return m == VERIFY_READ ? "read" : "hash";
}

/* Ships FILE and narrows the comparison to the range it now occupies. */
static int ship_first(const struct verify_command *cmd,
		      struct verify_config *vc)
{
	struct send_input in;
	struct rs_error err = {0};
	int rc = send_input_open(&in, cmd->file, &err);
	if (rc) {
		if (rc != RS_E_INTERRUPTED) /* main() says that */
			rs_err("%s", err.msg);
		return rc;
	}
	struct ship_result r;
	memset(&r, 0, sizeof(r));
	rc = ship_run(cmd->ship, &in, &r);
	send_input_close(&in);
	if (rc)
		return rc;
	rs_info("committed %llu bytes (%s); verifying them",
		(unsigned long long)r.committed, rs_method_name(r.method));
	vc->whole_log = false;
	vc->offset = r.first_offset;
	vc->length = r.committed;
	vc->local_max = r.committed;
	return 0;
}

static void report(const struct verify_command *cmd,
		   const struct verify_config *vc,
		   const struct verify_result *r)
{
	char receiver[RS_TARGET_LABEL_SIZE];
	const char *host =
	    rs_target_label(&vc->remote, receiver, sizeof(receiver));
	unsigned long long at = (unsigned long long)r->first_difference;
	switch (r->outcome) {
	case VERIFY_SAME:
		rs_info("%s and the log on %s are identical (%llu bytes, "
			"checked by %s)",
			cmd->file, host, (unsigned long long)r->compared,
			method_name(cmd->verify.method));
		break;
	case VERIFY_DIFFERENT:
		printf("%s and the log on %s differ: byte offset %llu\n",
		       cmd->file, host, at);
		break;
	case VERIFY_REMOTE_SHORTER:
		printf("the log on %s is shorter than %s: it ends at byte "
		       "offset %llu\n",
		       host, cmd->file, at);
		break;
	case VERIFY_REMOTE_LONGER:
		printf("the log on %s is longer than %s: %s ends at byte "
		       "offset %llu\n",
		       host, cmd->file, cmd->file, at);
		break;
	}
	fflush(stdout);
	if (cmd->stats)
		fprintf(stderr,
			"rpma-send: stats: verify bytes=%llu seconds=%.3f "
			"MBps=%.2f method=%s\n",
			(unsigned long long)r->compared, r->seconds,
			r->seconds > 0 ? (double)r->compared / r->seconds / 1e6
				       : 0.0,
			method_name(cmd->verify.method));
}

/* A directory opens, and fails only when read, after connecting. */
static int refuse_directory(const char *file, int fd, struct rs_error *err)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;
	close(fd);
	return rs_error_set(err, RS_E_IO, EISDIR,
			    "input %s is a directory; give a file", file);
}

/* Verifies FILE against one receiver: 0 with *same, or the trouble's
 * code, reported. */
static int verify_one(const struct verify_command *cmd,
		      const struct verify_config *vc, bool *same)
{
	int fd = STDIN_FILENO;
	if (strcmp(cmd->file, "-") != 0) {
		fd = open(cmd->file, O_RDONLY | O_CLOEXEC);
		struct rs_error err = {0};
		int rc = fd < 0 ? send_input_open_failed(cmd->file, errno, &err)
				: refuse_directory(cmd->file, fd, &err);
		if (rc == RS_E_INTERRUPTED) /* a FIFO with no writer yet */
			return rc;
		if (rc) {
			rs_err("%s", err.msg);
			return rc;
		}
	}
	struct verify_result r;
	int rc = verify_run(vc, fd, cmd->file, &r);
	if (fd != STDIN_FILENO)
		close(fd);
	if (rc)
		return rc;
	report(cmd, vc, &r);
	*same = r.outcome == VERIFY_SAME;
	return 0;
}

int verify_command_run(const struct verify_command *cmd, bool *same)
{
	struct verify_config vc = cmd->verify;
	*same = true;
	if (cmd->send_first) {
		if (strcmp(cmd->file, "-") == 0) {
			rs_err("--send with --verify needs a FILE to read "
			       "again, not standard input");
			return RS_E_INVAL;
		}
		int rc = ship_first(cmd, &vc);
		if (rc)
			return rc;
	}
	/* Every replica is checked, whatever an earlier one showed. */
	int trouble = 0;
	for (unsigned i = 0; i < cmd->nreplicas; i++) {
		vc.remote = cmd->replicas[i];
		bool one_same = true;
		int rc = verify_one(cmd, &vc, &one_same);
		if (rc && !trouble)
			trouble = rc;
		*same = *same && one_same;
	}
	return trouble;
}
