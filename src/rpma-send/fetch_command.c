#include "fetch_command.h"

#include "cli/log.h"
#include "error.h"
#include "fetcher.h"
#include "verifier.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether FILE's bytes are the log's first ones, by the receiver's hashes
 * (nothing read back). */
static int check_prefix(const struct fetch_command *cmd, int fd, uint64_t len)
{
	struct verify_config vc = {.remote = cmd->fetch.remote,
				   .timeout_ms = cmd->fetch.timeout_ms,
				   .auth_key = cmd->fetch.auth_key,
				   .method = VERIFY_HASH,
				   .chunk = 1u << 20,
				   .depth = VERIFY_DEPTH_DEFAULT,
				   .offset = 0,
				   .length = len,
				   .local_max = len};
	struct verify_result r;
	int rc = verify_run(&vc, fd, cmd->file, &r);
	if (rc)
		return rc;
	if (r.outcome == VERIFY_SAME && r.compared == len)
		return 0;
	if (r.outcome == VERIFY_REMOTE_SHORTER || r.remote_length < len)
		rs_err("%s holds %llu bytes, more than the log's %llu: it is "
		       "not a copy of this log (or the log was replaced); "
		       "fetch it whole without --resume",
		       cmd->file, (unsigned long long)len,
		       (unsigned long long)r.remote_length);
	else
		rs_err("%s is not a copy of the log's first bytes: they "
		       "differ at byte %llu; fetch it whole without --resume",
		       cmd->file, (unsigned long long)r.first_difference);
	return RS_E_DIVERGED;
}

/* FILE for --resume: appended to, after its bytes are checked. */
static int open_resume(struct fetch_command *cmd, int *fd)
{
	*fd = open(cmd->file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	struct stat st;
	if (*fd < 0 || fstat(*fd, &st)) {
		rs_err("cannot open %s: %s", cmd->file, strerror(errno));
		return RS_E_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		rs_err("--resume appends to a regular file; %s is not one",
		       cmd->file);
		return RS_E_IO;
	}
	uint64_t len = (uint64_t)st.st_size;
	int rc = len ? check_prefix(cmd, *fd, len) : 0;
	if (!rc && lseek(*fd, 0, SEEK_END) < 0)
		rc = RS_E_IO;
	cmd->fetch.start = (struct fetch_start){.from = len};
	if (len)
		rs_verbose("%s holds the log's first %llu bytes; fetching the "
			   "rest",
			   cmd->file, (unsigned long long)len);
	return rc;
}

static int open_output(struct fetch_command *cmd, int *fd)
{
	if (strcmp(cmd->file, "-") == 0) {
		*fd = STDOUT_FILENO;
		return 0;
	}
	if (cmd->resume)
		return open_resume(cmd, fd);
	*fd = open(cmd->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (*fd >= 0)
		return 0;
	rs_err("cannot create %s: %s; give a path in a directory you may "
	       "write, or - for standard output",
	       cmd->file, strerror(errno));
	return RS_E_IO;
}

int fetch_command_run(struct fetch_command *cmd, struct fetch_result *result)
{
	memset(result, 0, sizeof(*result));
	int fd = -1;
	int rc = open_output(cmd, &fd);
	if (!rc)
		rc = fetch_run(&cmd->fetch, fd, cmd->file, result);
	if (fd > STDOUT_FILENO && close(fd) && !rc) {
		rs_err("cannot write %s: %s", cmd->file, strerror(errno));
		rc = RS_E_IO;
	}
	if (cmd->stats)
		fprintf(stderr,
			"rpma-send: stats: fetched=%llu at=%llu seconds=%.3f "
			"MBps=%.2f\n",
			(unsigned long long)result->fetched,
			(unsigned long long)result->at, result->seconds,
			result->seconds > 0
			    ? (double)result->fetched / result->seconds / 1e6
			    : 0.0);
	if (!rc)
		rs_info("fetched %llu bytes (the log up to byte %llu)",
			(unsigned long long)result->fetched,
			(unsigned long long)result->at);
	return rc;
}
