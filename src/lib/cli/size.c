#include "cli/size.h"

#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rs_size_parse(const char *text, uint64_t *out)
{
	if (!text || !isdigit((unsigned char)text[0]))
		return RS_E_INVAL;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno != 0)
		return RS_E_INVAL;

	unsigned shift = 0;
	switch (toupper((unsigned char)*end)) {
	case '\0':
		break;
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return RS_E_INVAL;
	}
	if (shift) {
		end++;
		if (strcmp(end, "") != 0 && strcmp(end, "B") != 0 &&
		    strcmp(end, "iB") != 0)
			return RS_E_INVAL;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return RS_E_INVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

const char *rs_size_format(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	unsigned u = 0;
	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

void rs_size_show(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;
	while (u < 3 && v && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
}
