#include "cli/duration.h"

#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *suffix;
	uint64_t ms;
} units[] = {{"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}};

int rs_duration_parse_bare(const char *text, uint64_t bare_ms, uint64_t *ms)
{
	if (!isdigit((unsigned char)text[0]))
		return RS_E_INVAL;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(text, &end, 10);
	if (errno)
		return RS_E_INVAL;
	uint64_t unit = *end ? 0 : bare_ms;
	for (size_t i = 0; !unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix))
			unit = units[i].ms;
	if (!unit || n > UINT64_MAX / unit)
		return RS_E_INVAL;
	*ms = n * unit;
	return 0;
}

int rs_duration_parse(const char *text, uint64_t *ms)
{
	return rs_duration_parse_bare(text, 1000, ms);
}

void rs_duration_show(uint64_t ms, char *buf, size_t len)
{
	unsigned long long v = ms;
	if (v && v % 3600000 == 0)
		snprintf(buf, len, "%llu hour%s", v / 3600000,
			 v == 3600000 ? "" : "s");
	else if (v && v % 60000 == 0)
		snprintf(buf, len, "%llu min", v / 60000);
	else if (v && v % 1000 == 0)
		snprintf(buf, len, "%llu s", v / 1000);
	else
		snprintf(buf, len, "%llu ms", v);
}
