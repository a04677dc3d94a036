#include "service/sd_notify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int fail_with(int errnum)
{
	errno = errnum;
	return -1;
}

/* Fills sa and *len from $NOTIFY_SOCKET's value; returns 0, or -1 with
 * errno set. An abstract name is sun_path[0] == '\0' followed by the rest
 * of the name with no terminator: its length is part of the address, so it
 * must be exact or systemd's socket is not the one reached. */
static int notify_address(const char *name, struct sockaddr_un *sa,
			  socklen_t *len)
{
	size_t n = strlen(name);
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (name[0] == '/') {
		if (n >= sizeof(sa->sun_path))
			return fail_with(EINVAL);
		memcpy(sa->sun_path, name, n + 1);
		*len =
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
		return 0;
	}
	if (name[0] == '@') {
		if (n < 2 || n > sizeof(sa->sun_path))
			return fail_with(EINVAL);
		memcpy(sa->sun_path + 1, name + 1, n - 1);
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
		return 0;
	}
	/* Another kind of address (systemd 253 also knows "vsock:CID:PORT"),
	 * or an empty or relative path, which systemd never sets. */
	if (strchr(name, ':'))
		return fail_with(EAFNOSUPPORT);
	return fail_with(EINVAL);
}

static int send_datagram(const struct sockaddr_un *sa, socklen_t len,
			 const char *state)
{
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	size_t n = strlen(state);
	ssize_t sent;
	do
		sent = sendto(fd, state, n, MSG_NOSIGNAL,
			      (const struct sockaddr *)sa, len);
	while (sent < 0 && errno == EINTR);
	int saved = errno;
	close(fd);
	if (sent < 0) {
		errno = saved;
		return -1;
	}
	/* A datagram goes whole or not at all; a short count would be a bug
	 * of the kernel, not ours to repair. */
	return (size_t)sent == n ? 0 : fail_with(EIO);
}

int recv_sd_notify(const char *state)
{
	const char *name = getenv("NOTIFY_SOCKET");
	if (!name)
		return 0;
	struct sockaddr_un sa;
	socklen_t len;
	if (notify_address(name, &sa, &len))
		return -1;
	return send_datagram(&sa, len, state);
}

static int notify_formatted(const char *fmt, va_list ap)
{
	char state[1024];
	int n = vsnprintf(state, sizeof(state), fmt, ap);
	if (n < 0)
		return -1;
	if ((size_t)n >= sizeof(state))
		return fail_with(EMSGSIZE);
	return recv_sd_notify(state);
}

int recv_sd_notifyf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = notify_formatted(fmt, ap);
	va_end(ap);
	return rc;
}

int recv_sd_notify_reloading(void)
{
	struct timespec now;
	if (clock_gettime(CLOCK_MONOTONIC, &now))
		return -1;
	uint64_t usec =
	    (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
	return recv_sd_notifyf("RELOADING=1\nMONOTONIC_USEC=%" PRIu64, usec);
}
