#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rs_error_set(struct rs_error *err, int code, int sys_errno, const char *fmt,
		 ...)
{
	if (!err)
		return code;
	err->code = code;
	err->sys_errno = sys_errno;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int rs_error_wrap(struct rs_error *err, const char *fmt, ...)
{
	if (!err)
		return RS_E_INVAL;
	char text[sizeof(err->msg)];
	memcpy(text, err->msg, sizeof(text));
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	size_t used = n < 0 ? 0 : (size_t)n;
	if (used + 2 < sizeof(err->msg)) {
		memcpy(err->msg + used, ": ", 3);
		used += 2;
		size_t room = sizeof(err->msg) - used - 1;
		size_t len = strnlen(text, room);
		memcpy(err->msg + used, text, len);
		err->msg[used + len] = '\0';
	}
	return err->code;
}

const char *rs_error_str(const struct rs_error *err)
{
	if (err && err->msg[0])
		return err->msg;
	return "unknown error";
}

bool rs_errno_out_of_files(int e)
{
	return e == EMFILE || e == ENFILE;
}
