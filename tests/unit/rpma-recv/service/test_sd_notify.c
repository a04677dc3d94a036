/* The receiver's systemd notifications: the datagram reaches a socket named
 * by $NOTIFY_SOCKET, path or abstract, byte for byte; nothing is sent and
 * nothing fails outside systemd; a bad $NOTIFY_SOCKET is an error. The
 * status line goes with READY=1, then only when its text changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "service/sd_notify.h"
#include "service/status_line.h"

/* A datagram socket standing in for systemd's, and the $NOTIFY_SOCKET
 * value that names it. */
struct fake_manager {
	int fd;
	char dir[64];	/* temp dir of a path socket, or "" */
	char name[128]; /* value for $NOTIFY_SOCKET */
};

static void bind_or_fail(int fd, const struct sockaddr_un *sa, socklen_t len)
{
	assert_int_equal(bind(fd, (const struct sockaddr *)sa, len), 0);
}

static int manager_at_path(void **state)
{
	struct fake_manager *m = calloc(1, sizeof(*m));
	assert_non_null(m);
	strcpy(m->dir, "/tmp/rs-sd-notify-XXXXXX");
	assert_non_null(mkdtemp(m->dir));
	snprintf(m->name, sizeof(m->name), "%s/notify", m->dir);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, m->name);
	m->fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(m->fd >= 0);
	bind_or_fail(m->fd, &sa, sizeof(sa));
	setenv("NOTIFY_SOCKET", m->name, 1);
	*state = m;
	return 0;
}

/* An abstract name's length is part of the address: the bind uses exactly
 * the name's bytes, so a sender adding a terminator or padding to the full
 * sun_path would reach no one (ECONNREFUSED). */
static int manager_abstract(void **state)
{
	struct fake_manager *m = calloc(1, sizeof(*m));
	assert_non_null(m);
	snprintf(m->name, sizeof(m->name), "@rs-sd-notify-test/%ld-%d",
		 (long)getpid(), rand());
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(m->name);
	memcpy(sa.sun_path + 1, m->name + 1, n - 1);
	m->fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(m->fd >= 0);
	bind_or_fail(m->fd, &sa,
		     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n));
	setenv("NOTIFY_SOCKET", m->name, 1);
	*state = m;
	return 0;
}

static int manager_stop(void **state)
{
	struct fake_manager *m = *state;
	close(m->fd);
	if (m->dir[0]) {
		unlink(m->name);
		rmdir(m->dir);
	}
	free(m);
	unsetenv("NOTIFY_SOCKET");
	return 0;
}

/* The next datagram, without waiting: length and bytes as sent. */
static size_t received(struct fake_manager *m, char *buf, size_t size)
{
	ssize_t n = recv(m->fd, buf, size - 1, MSG_DONTWAIT | MSG_TRUNC);
	assert_true(n >= 0);
	assert_true((size_t)n < size);
	buf[n] = '\0';
	return (size_t)n;
}

static void nothing_received(struct fake_manager *m)
{
	char byte;
	assert_int_equal(recv(m->fd, &byte, 1, MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
}

static void sends_exact_bytes(void **state)
{
	struct fake_manager *m = *state;
	char buf[256];
	assert_int_equal(recv_sd_notify("READY=1"), 0);
	assert_int_equal(received(m, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "READY=1");
	assert_int_equal(recv_sd_notify("STOPPING=1\nSTATUS=stopping"), 0);
	assert_int_equal(received(m, buf, sizeof(buf)), 26);
	assert_string_equal(buf, "STOPPING=1\nSTATUS=stopping");
	nothing_received(m);
	/* Left set: a reload's READY=1 must reach systemd as well. */
	assert_string_equal(getenv("NOTIFY_SOCKET"), m->name);
}

static void sends_formatted(void **state)
{
	struct fake_manager *m = *state;
	char buf[256];
	assert_int_equal(recv_sd_notifyf("STATUS=serving %d logs", 3), 0);
	received(m, buf, sizeof(buf));
	assert_string_equal(buf, "STATUS=serving 3 logs");
}

static void refuses_to_cut_a_long_state(void **state)
{
	struct fake_manager *m = *state;
	char big[2048];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	errno = 0;
	assert_int_equal(recv_sd_notifyf("STATUS=%s", big), -1);
	assert_int_equal(errno, EMSGSIZE);
	nothing_received(m);
}

static uint64_t monotonic_usec(void)
{
	struct timespec t;
	assert_int_equal(clock_gettime(CLOCK_MONOTONIC, &t), 0);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

static void reloading_carries_monotonic_time(void **state)
{
	struct fake_manager *m = *state;
	char buf[256];
	uint64_t before = monotonic_usec();
	assert_int_equal(recv_sd_notify_reloading(), 0);
	uint64_t after = monotonic_usec();
	received(m, buf, sizeof(buf));
	const char *head = "RELOADING=1\nMONOTONIC_USEC=";
	assert_memory_equal(buf, head, strlen(head));
	char *end;
	uint64_t usec = strtoull(buf + strlen(head), &end, 10);
	assert_int_equal(*end, '\0');
	assert_true(usec >= before && usec <= after);
}

static void unset_is_a_silent_no_op(void **state)
{
	struct fake_manager *m = *state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(recv_sd_notify("READY=1"), 0);
	assert_int_equal(recv_sd_notifyf("STATUS=%d", 1), 0);
	assert_int_equal(recv_sd_notify_reloading(), 0);
	nothing_received(m);
}

static void expect_received(struct fake_manager *m, const char *want)
{
	char buf[512];
	received(m, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void status_sent_when_changed(void **state)
{
	struct fake_manager *m = *state;
	const char *idle = "serving 2 logs (app, audit), 0 senders connected";
	const char *busy = "serving 2 logs (app, audit), 1 sender connected";
	struct recv_status_line line;
	recv_status_line_init(&line);
	assert_true(recv_status_line_send(&line, "READY=1\n", idle));
	expect_received(m, "READY=1\nSTATUS=serving 2 logs (app, audit), 0 "
			   "senders connected");
	/* The loop offers it every turn: unchanged, nothing goes out. */
	assert_false(recv_status_line_send(&line, 0, idle));
	nothing_received(m);
	assert_true(recv_status_line_send(&line, 0, busy));
	expect_received(m, "STATUS=serving 2 logs (app, audit), 1 sender "
			   "connected");
	assert_false(recv_status_line_send(&line, 0, busy));
	assert_true(recv_status_line_send(&line, 0, idle));
	expect_received(m, "STATUS=serving 2 logs (app, audit), 0 senders "
			   "connected");
	/* A head (READY=1 after a reload) goes out even unchanged. */
	assert_true(recv_status_line_send(&line, "READY=1\n", idle));
	expect_received(m, "READY=1\nSTATUS=serving 2 logs (app, audit), 0 "
			   "senders connected");
	nothing_received(m);
}

/* Outside systemd at start: never sent, even if the variable appears. */
static void status_silent_outside_systemd(void **state)
{
	struct fake_manager *m = *state;
	unsetenv("NOTIFY_SOCKET");
	struct recv_status_line line;
	recv_status_line_init(&line);
	assert_false(line.enabled);
	setenv("NOTIFY_SOCKET", m->name, 1);
	assert_false(recv_status_line_send(&line, "READY=1\n", "serving"));
	assert_false(recv_status_line_send(&line, 0, "serving more"));
	nothing_received(m);
}

static void expect_failure(const char *notify_socket, int want_errno)
{
	setenv("NOTIFY_SOCKET", notify_socket, 1);
	errno = 0;
	assert_int_equal(recv_sd_notify("READY=1"), -1);
	assert_int_equal(errno, want_errno);
}

static void bad_addresses_fail(void **state)
{
	(void)state;
	char too_long[sizeof(((struct sockaddr_un *)0)->sun_path) + 2];
	memset(too_long, 'a', sizeof(too_long) - 1);
	too_long[0] = '/';
	too_long[sizeof(too_long) - 1] = '\0';
	expect_failure("", EINVAL);
	expect_failure("run/notify", EINVAL);
	expect_failure("@", EINVAL);
	expect_failure(too_long, EINVAL);
	too_long[0] = '@';
	expect_failure(too_long, EINVAL);
	expect_failure("vsock:2:1234", EAFNOSUPPORT);
	expect_failure("/nonexistent/rs-sd-notify", ENOENT);
	expect_failure("@rs-sd-notify-test/nobody-listens", ECONNREFUSED);
	unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
	srand((unsigned)getpid());
	const struct CMUnitTest tests[] = {
	    {"sends_exact_bytes to a path", sends_exact_bytes, manager_at_path,
	     manager_stop, NULL},
	    {"sends_exact_bytes to an abstract name", sends_exact_bytes,
	     manager_abstract, manager_stop, NULL},
	    cmocka_unit_test_setup_teardown(sends_formatted, manager_abstract,
					    manager_stop),
	    cmocka_unit_test_setup_teardown(refuses_to_cut_a_long_state,
					    manager_at_path, manager_stop),
	    cmocka_unit_test_setup_teardown(reloading_carries_monotonic_time,
					    manager_at_path, manager_stop),
	    cmocka_unit_test_setup_teardown(unset_is_a_silent_no_op,
					    manager_at_path, manager_stop),
	    cmocka_unit_test_setup_teardown(status_sent_when_changed,
					    manager_abstract, manager_stop),
	    cmocka_unit_test_setup_teardown(status_silent_outside_systemd,
					    manager_at_path, manager_stop),
	    cmocka_unit_test(bad_addresses_fail),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
