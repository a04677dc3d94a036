#include "input.h"

#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t send_stop_requested;

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
	in->dev = st.st_dev;
	in->ino = st.st_ino;
	in->pos = 0;
	in->is_regular = S_ISREG(st.st_mode);
	return 0;
}

int send_input_open(struct send_input *in, const char *path, bool follow,
		    struct rs_error *err)
{
	memset(in, 0, sizeof(*in));
	in->name = path;
	in->path = path;
	in->follow = follow;
	if (strcmp(path, "-") == 0) {
		if (follow)
			return rs_error_set(err, RS_E_INVAL, 0,
					    "--follow needs a file path, not "
					    "standard input; pipe `tail -F "
					    "FILE` instead");
		in->fd = STDIN_FILENO;
		in->name = "standard input";
		struct stat st;
		in->is_regular = fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode);
		return 0;
	}
	int rc = open_path(in, err);
	if (rc && follow && err && err->sys_errno == ENOENT) {
		/* As tail -F: a file not there yet is waited for. */
		in->fd = -1;
		in->is_regular = true;
		return 0;
	}
	return rc;
}

void send_input_close(struct send_input *in)
{
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
}

/* --follow at the end of the file: reopens a rotated file or rewinds a
 * truncated one; otherwise the caller waits a moment for growth. */
static void follow_wait(struct send_input *in)
{
	struct stat st;
	if (stat(in->path, &st) == 0) {
		if (st.st_dev != in->dev || st.st_ino != in->ino) {
			int old = in->fd;
			in->fd = -1;
			if (open_path(in, NULL) == 0) {
				if (old >= 0)
					close(old);
				return;
			}
			in->fd = old; /* vanished again: keep waiting */
		} else if (st.st_size < in->pos) {
			lseek(in->fd, 0, SEEK_SET);
			in->pos = 0;
		}
	}
}

ssize_t send_input_read(struct send_input *in, void *buf, size_t cap)
{
	if (in->eof)
		return 0;
	if (in->fd < 0) { /* --follow of a file that does not exist yet */
		follow_wait(in);
		return 0;
	}
	ssize_t n = read(in->fd, buf, cap);
	if (n > 0) {
		in->pos += n;
	} else if (n == 0 && in->follow) {
		follow_wait(in);
	} else if (n == 0) {
		in->eof = true;
	}
	return n;
}

int send_input_wait_fd(const struct send_input *in)
{
	return in->is_regular ? -1 : in->fd;
}

uint64_t send_input_size(const struct send_input *in)
{
	struct stat st;
	if (!in->is_regular || in->follow || in->fd < 0 || fstat(in->fd, &st))
		return 0;
	off_t at = lseek(in->fd, 0, SEEK_CUR);
	return st.st_size > at && at >= 0 ? (uint64_t)(st.st_size - at) : 0;
}
