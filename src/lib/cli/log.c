#include "cli/log.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Set by rs_log_init() before any thread starts, read-only afterwards. */
static const char *log_program = "rpma";
static enum rs_log_level log_level = RS_LOG_NORMAL;
static bool log_to_journal;
/* A status line drawn without its newline; any thread's message ends it. */
static atomic_bool log_line_is_open;

/* sd-daemon(3) priority prefixes, which journald strips and records. */
#define PRIORITY_ERR "<3>"
#define PRIORITY_WARNING "<4>"
#define PRIORITY_INFO "<6>"
#define PRIORITY_DEBUG "<7>"

/* Parses one decimal number ending at stop; strtoull alone would also take
 * leading blanks and signs, which systemd never writes. */
static bool parse_decimal(const char *s, char stop, unsigned long long *value,
			  const char **end)
{
	if (!isdigit((unsigned char)*s))
		return false;
	char *after;
	errno = 0;
	*value = strtoull(s, &after, 10);
	if (errno || *after != stop)
		return false;
	*end = after;
	return true;
}

bool rs_log_is_journal_stream(const char *journal_stream, int fd)
{
	unsigned long long dev, ino;
	const char *rest;
	if (!journal_stream ||
	    !parse_decimal(journal_stream, ':', &dev, &rest) ||
	    !parse_decimal(rest + 1, '\0', &ino, &rest))
		return false;
	struct stat st;
	if (fstat(fd, &st))
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

void rs_log_init(const char *program, enum rs_log_level level)
{
	log_program = program;
	log_level = level;
	log_to_journal =
	    rs_log_is_journal_stream(getenv("JOURNAL_STREAM"), STDERR_FILENO);
}

void rs_log_line_open(bool open)
{
	atomic_store(&log_line_is_open, open);
}

enum rs_log_level rs_log_get_level(void)
{
	return log_level;
}

static size_t at_most(int n, size_t limit)
{
	if (n < 0)
		return 0;
	return (size_t)n < limit ? (size_t)n : limit;
}

/* One write(2) for the whole line, so that lines of concurrent threads
 * never interleave: a pipe or the journal's stream socket takes a write
 * this small whole. Loops only for the rare short write or signal. */
static void write_whole(const char *line, size_t n)
{
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(STDERR_FILENO, line + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* nowhere left to report it */
		done += (size_t)w;
	}
}

/* Builds the line, newline included, then writes it at once. A message
 * too long for the buffer is cut, never split over two lines. */
static void log_line(const char *priority, const char *fmt, va_list ap)
{
	int saved_errno = errno; /* for %m, and callers that log, then use it */
	char line[1024];
	const size_t text_room = sizeof(line) - 1; /* one byte for '\n' */
	bool end_status = atomic_exchange(&log_line_is_open, false);
	int head = snprintf(line, text_room, "%s%s%s: ", end_status ? "\n" : "",
			    log_to_journal ? priority : "", log_program);
	size_t n = at_most(head, text_room - 1);
	errno = saved_errno;
	n += at_most(vsnprintf(line + n, text_room - n, fmt, ap),
		     text_room - n - 1);
	line[n++] = '\n';
	write_whole(line, n);
	errno = saved_errno;
}

void rs_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_line(PRIORITY_ERR, fmt, ap);
	va_end(ap);
}

void rs_warn(const char *fmt, ...)
{
	if (log_level < RS_LOG_NORMAL)
		return;
	va_list ap;
	va_start(ap, fmt);
	log_line(PRIORITY_WARNING, fmt, ap);
	va_end(ap);
}

void rs_info(const char *fmt, ...)
{
	if (log_level < RS_LOG_NORMAL)
		return;
	va_list ap;
	va_start(ap, fmt);
	log_line(PRIORITY_INFO, fmt, ap);
	va_end(ap);
}

void rs_verbose(const char *fmt, ...)
{
	if (log_level < RS_LOG_VERBOSE)
		return;
	va_list ap;
	va_start(ap, fmt);
	log_line(PRIORITY_DEBUG, fmt, ap);
	va_end(ap);
}
