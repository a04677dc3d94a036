#include "commands/fetch.h"

#include "cli/log.h"
#include "error.h"
#include "fetch/fetcher.h"
#include "verify/verifier.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Where the bytes go: standard output; FILE appended to (--resume) or
 * opened as the first bytes come (--follow); or, for a fetch that ends, a
 * temporary file beside FILE renamed over it at the end, so that a fetch
 * that fails leaves FILE as it was. */
struct output {
	const char *file;
	int fd;		/* -1 until opened */
	char tmp[4200]; /* the temporary file, or "" */
	bool lazy;	/* FILE itself, opened at the first write */
};

static int out_write(void *ctx, const uint8_t *p, uint64_t len)
{
	struct output *o = ctx;
	if (o->fd < 0 && o->lazy)
		o->fd = open(o->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
	while (len) {
		ssize_t n = o->fd < 0 ? -1 : write(o->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rs_err("cannot write %s: %s", o->file,
			       strerror(n < 0 ? errno : EIO));
			return RS_E_IO;
		}
		p += n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* FILE for --resume: appended to, after its bytes are checked. */
static int open_resume(struct fetch_command *cmd, struct output *o)
{
	o->fd = open(cmd->file, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	struct stat st;
	if (o->fd < 0 || fstat(o->fd, &st)) {
		rs_err("cannot open %s: %s", cmd->file, strerror(errno));
		return RS_E_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		rs_err("--resume appends to a regular file; %s is not one",
		       cmd->file);
		return RS_E_IO;
	}
	uint64_t len = (uint64_t)st.st_size;
	int rc = len ? check_prefix(cmd, o->fd, len) : 0;
	if (!rc && lseek(o->fd, 0, SEEK_END) < 0)
		rc = RS_E_IO;
	cmd->fetch.start = (struct fetch_start){.from = len};
	if (len && !rc)
		rs_verbose("%s holds the log's first %llu bytes; fetching the "
			   "rest",
			   cmd->file, (unsigned long long)len);
	return rc;
}

static int open_tmp(struct output *o)
{
	snprintf(o->tmp, sizeof(o->tmp), "%s.fetch-XXXXXX", o->file);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd >= 0 && fchmod(o->fd, 0644) == 0)
		return 0;
	rs_err("cannot create %s: %s; give a path in a directory you may "
	       "write, or - for standard output",
	       o->tmp, strerror(errno));
	o->tmp[0] = '\0';
	return RS_E_IO;
}

static int open_output(struct fetch_command *cmd, struct output *o)
{
	*o = (struct output){.file = cmd->file, .fd = -1};
	if (strcmp(cmd->file, "-") == 0) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (cmd->resume)
		return open_resume(cmd, o);
	o->lazy = cmd->fetch.follow;
	return o->lazy ? 0 : open_tmp(o);
}

/* Closes the output; a fetch that ended well renames its temporary file
 * over FILE, one that did not removes it. */
static int close_output(struct output *o, int rc)
{
	if (o->fd > STDOUT_FILENO && close(o->fd) && !rc) {
		rs_err("cannot write %s: %s", o->file, strerror(errno));
		rc = RS_E_IO;
	}
	if (!o->tmp[0])
		return rc;
	if (!rc && rename(o->tmp, o->file)) {
		rs_err("cannot rename %s to %s: %s", o->tmp, o->file,
		       strerror(errno));
		rc = RS_E_IO;
	}
	if (rc)
		unlink(o->tmp);
	return rc;
}

int fetch_command_run(struct fetch_command *cmd, struct fetch_result *result)
{
	memset(result, 0, sizeof(*result));
	struct output o;
	int rc = open_output(cmd, &o);
	struct fetch_sink sink = {&o, out_write};
	if (!rc)
		rc = fetch_run(&cmd->fetch, &sink, result);
	rc = close_output(&o, rc);
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
