#include "cli/duration.h"

#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rs_duration_parse(const char *text, uint64_t *ms)
{
	if (!isdigit((unsigned char)text[0]))
		return RS_E_INVAL;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text, &end, 10);
	if (errno)
		return RS_E_INVAL;
	uint64_t unit;
	if (!strcmp(end, "ms"))
		unit = 1;
	else if (!strcmp(end, "") || !strcmp(end, "s"))
		unit = 1000;
	else if (!strcmp(end, "m"))
		unit = 60000;
	else
		return RS_E_INVAL;
	if (n > UINT64_MAX / unit)
		return RS_E_INVAL;
	*ms = n * unit;
	return 0;
}
