#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t send_stop_requested;

int send_input_open(struct send_input *in, const char *path, char *err,
		    size_t errlen)
{
	memset(in, 0, sizeof(*in));
	in->name = path;
	if (strcmp(path, "-") == 0) {
		in->fd = STDIN_FILENO;
		in->name = "standard input";
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			snprintf(err, errlen, "cannot open input %s: %s", path,
				 strerror(errno));
			return -1;
		}
	}
	struct stat st;
	if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "input %s is a directory; give a file",
			 path);
		send_input_close(in);
		return -1;
	}
	in->is_regular = fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode);
	return 0;
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

ssize_t send_input_fill(struct send_input *in, void *buf, size_t cap,
			int idle_ms)
{
	size_t len = 0;
	while (len < cap && !in->eof && !send_stop_requested) {
		if (len > 0 && !in->is_regular && !input_ready(in, idle_ms))
			break; /* idle: commit what we have */
		ssize_t n = read(in->fd, (char *)buf + len, cap - len);
		if (n == 0) {
			in->eof = true;
		} else if (n > 0) {
			len += (size_t)n;
		} else if (errno != EINTR) {
			return -1;
		}
	}
	return (ssize_t)len;
}
