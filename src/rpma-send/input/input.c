#include "input/input.h"

#include "cli/log.h"
#include "common/stop.h"
#include "error.h"
#include "input/follow.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why the input could not be opened, and the fix. A signal that ends the
 * wait for a FIFO's writer is no error of the file: the caller reports
 * it. */
int send_input_open_failed(const char *path, int e, struct rs_error *err)
{
	if (e == EINTR && send_stop_requested)
		return rs_error_set(err, RS_E_INTERRUPTED, e,
				    "interrupted while opening %s", path);
	if (e == ENOENT || e == ENOTDIR)
		return rs_error_set(err, RS_E_IO, e,
				    "cannot open input %s: %s: check the path, "
				    "or give - for standard input",
				    path, strerror(e));
	if (e == EACCES || e == EPERM) {
		const struct passwd *pw = getpwuid(geteuid());
		return rs_error_set(err, RS_E_IO, e,
				    "cannot open input %s: permission denied: "
				    "it must be readable by this user (%s)",
				    path, pw ? pw->pw_name : "this user");
	}
	return rs_error_set(err, RS_E_IO, e, "cannot open input %s: %s", path,
			    strerror(e));
}

static int open_path(struct send_input *in, struct rs_error *err)
{
	in->fd = open(in->path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0)
		return send_input_open_failed(in->path, errno, err);
	struct stat st;
	if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		send_input_close(in);
		return rs_error_set(err, RS_E_IO, EISDIR,
				    "input %s is a directory; give a file",
				    in->path);
	}
	in->pos = 0;
	in->is_regular = S_ISREG(st.st_mode);
	return 0;
}

int send_input_open(struct send_input *in, const char *path,
		    struct rs_error *err)
{
	memset(in, 0, sizeof(*in));
	in->name = path;
	in->path = path;
	if (strcmp(path, "-") == 0) {
		in->fd = STDIN_FILENO;
		in->name = "standard input";
		struct stat st;
		in->is_regular = fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode);
		return 0;
	}
	return open_path(in, err);
}

int send_input_follow(struct send_input *in, const char *path,
		      uint64_t rotate_wait_ms, struct rs_error *err)
{
	if (strcmp(path, "-") == 0)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--follow needs a file path, not standard "
				    "input; pipe `tail -F FILE` instead");
	/* Checked now; a file not there yet is waited for, as tail -F
	 * does. */
	int rc = send_input_open(in, path, err);
	if (rc && !(err && err->sys_errno == ENOENT))
		return rc;
	send_input_close(in);
	in->follow = true;
	in->is_regular = true;
	in->follower = follower_new(path, rotate_wait_ms);
	if (!in->follower)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	/* Rotations are noticed as they come, also while the sender waits
	 * for a receiver. */
	if (!follower_watch_in_background(in->follower))
		rs_warn("cannot start a thread to watch %s: rotations are "
			"noticed only between the sender's waits",
			path);
	return 0;
}

bool send_input_follow_from(struct send_input *in, const char *const *paths,
			    int n, uint64_t from)
{
	return in->follower && follower_start_at(in->follower, paths, n, from);
}

void send_input_close(struct send_input *in)
{
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
	follower_free(in->follower);
	in->follower = NULL;
}

ssize_t send_input_read(struct send_input *in, void *buf, size_t cap)
{
	if (in->eof)
		return 0;
	ssize_t n = in->follower ? follower_read(in->follower, buf, cap)
				 : read(in->fd, buf, cap);
	if (n > 0)
		in->pos += n;
	else if (n == 0 && !in->follower)
		in->eof = true;
	return n;
}

int send_input_wait_fd(const struct send_input *in)
{
	return in->is_regular ? -1 : in->fd;
}

uint64_t send_input_size(const struct send_input *in)
{
	struct stat st;
	if (!in->is_regular || in->follower || in->fd < 0 || fstat(in->fd, &st))
		return 0;
	off_t at = lseek(in->fd, 0, SEEK_CUR);
	return st.st_size > at && at >= 0 ? (uint64_t)(st.st_size - at) : 0;
}

int send_input_wake_fd(const struct send_input *in)
{
	return in->follower ? follower_wake_fd(in->follower) : -1;
}

uint64_t send_input_recheck_ms(const struct send_input *in)
{
	return in->follower ? follower_recheck_ms(in->follower) : 0;
}

void send_input_notice(struct send_input *in)
{
	if (in->follower)
		follower_notice(in->follower);
}

void send_input_stop_waiting(struct send_input *in)
{
	if (in->follower)
		follower_stop_waiting(in->follower);
}

unsigned send_input_losses(struct send_input *in, char *buf, size_t len)
{
	return in->follower ? follower_losses(in->follower, buf, len) : 0;
}

unsigned send_input_left(struct send_input *in, char *buf, size_t len)
{
	return in->follower ? follower_left(in->follower, buf, len) : 0;
}
