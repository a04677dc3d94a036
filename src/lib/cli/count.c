#include "count.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

bool rs_count_parse(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!*text)
		return false;
	for (const char *c = text; *c; c++)
		if (!isdigit((unsigned char)*c))
			return false;
	errno = 0;
	unsigned long long v = strtoull(text, 0, 10);
	if (errno || v < min || v > max)
		return false;
	*out = v;
	return true;
}
