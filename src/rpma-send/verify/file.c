#include "verify/file.h"

#include "common/stop.h"
#include "error.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Fills buf up to len, short only at the end of the input. Unreadable
 * input is local file trouble: RS_E_IO. */
static int file_read(void *ctx, uint8_t *buf, size_t len, size_t *got,
		     struct rs_error *err)
{
	const struct verify_file *f = ctx;
	*got = 0;
	while (*got < len) {
		ssize_t n = read(f->fd, buf + *got, len - *got);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR && !send_stop_requested)
			continue;
		if (n < 0) {
			int e = errno;
			return rs_error_set(err, RS_E_IO, e,
					    "cannot read %s: %s", f->name,
					    strerror(e));
		}
		*got += (size_t)n;
	}
	return 0;
}

struct verify_source verify_file_source(struct verify_file *f)
{
	return (struct verify_source){.ctx = f, .read = file_read};
}
