#include "cli/log.h"

#include <stdarg.h>
#include <stdio.h>

static const char *log_program = "rpma";
static enum rs_log_level log_level = RS_LOG_NORMAL;

void rs_log_init(const char *program, enum rs_log_level level)
{
	log_program = program;
	log_level = level;
}

enum rs_log_level rs_log_get_level(void)
{
	return log_level;
}

static void log_line(const char *fmt, va_list ap)
{
	/* Build the line first so concurrent writers never interleave it. */
	char line[1024];
	int n = snprintf(line, sizeof(line), "%s: ", log_program);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	fprintf(stderr, "%s\n", line);
}

void rs_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	log_line(fmt, ap);
	va_end(ap);
}

void rs_info(const char *fmt, ...)
{
	if (log_level < RS_LOG_NORMAL)
		return;
	va_list ap;
	va_start(ap, fmt);
	log_line(fmt, ap);
	va_end(ap);
}

void rs_verbose(const char *fmt, ...)
{
	if (log_level < RS_LOG_VERBOSE)
		return;
	va_list ap;
	va_start(ap, fmt);
	log_line(fmt, ap);
	va_end(ap);
}
