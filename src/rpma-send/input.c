#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t send_stop_requested;

/* How often --follow looks for growth or rotation once at the end. */
#define FOLLOW_POLL_MS 20

static int open_path(struct send_input *in, char *err, size_t errlen)
{
	in->fd = open(in->path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0) {
		snprintf(err, errlen, "cannot open input %s: %s", in->path,
			 strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "input %s is a directory; give a file",
			 in->path);
		send_input_close(in);
		return -1;
	}
	in->dev = st.st_dev;
	in->ino = st.st_ino;
	in->pos = 0;
	in->is_regular = S_ISREG(st.st_mode);
	return 0;
}

int send_input_open(struct send_input *in, const char *path, bool follow,
		    char *err, size_t errlen)
{
	memset(in, 0, sizeof(*in));
	in->name = path;
	in->path = path;
	in->follow = follow;
	if (strcmp(path, "-") == 0) {
		if (follow) {
			snprintf(err, errlen,
				 "--follow needs a file path, not standard "
				 "input; pipe `tail -F FILE` instead");
			return -1;
		}
		in->fd = STDIN_FILENO;
		in->name = "standard input";
		struct stat st;
		in->is_regular = fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode);
		return 0;
	}
	return open_path(in, err, errlen);
}

void send_input_close(struct send_input *in)
{
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	in->fd = -1;
}

/* True when more input arrived within idle_ms. */
static bool input_ready(const struct send_input *in, int idle_ms)
{
	struct pollfd pfd = {.fd = in->fd, .events = POLLIN};
	return poll(&pfd, 1, idle_ms) > 0;
}

/* --follow at the end of the file: reopens a rotated file, rewinds a
 * truncated one, or waits a moment for growth. */
static void follow_wait(struct send_input *in)
{
	struct stat st;
	if (stat(in->path, &st) == 0) {
		if (st.st_dev != in->dev || st.st_ino != in->ino) {
			char err[256];
			int old = in->fd;
			in->fd = -1;
			if (open_path(in, err, sizeof(err)) == 0) {
				close(old);
				return;
			}
			in->fd = old; /* vanished again: keep waiting */
		} else if (st.st_size < in->pos) {
			lseek(in->fd, 0, SEEK_SET);
			in->pos = 0;
			return;
		}
	}
	struct timespec ts = {0, FOLLOW_POLL_MS * 1000000L};
	nanosleep(&ts, 0);
}

ssize_t send_input_fill(struct send_input *in, void *buf, size_t cap,
			int idle_ms)
{
	size_t len = 0;
	while (len < cap && !in->eof && !send_stop_requested) {
		if (len > 0 && !in->is_regular && !input_ready(in, idle_ms))
			break; /* idle: commit what we have */
		ssize_t n = read(in->fd, (char *)buf + len, cap - len);
		if (n > 0) {
			len += (size_t)n;
			in->pos += n;
		} else if (n == 0 && in->follow) {
			if (len > 0)
				break; /* at the end for now: commit it */
			follow_wait(in);
		} else if (n == 0) {
			in->eof = true;
		} else if (errno != EINTR) {
			return -1;
		}
	}
	return (ssize_t)len;
}
