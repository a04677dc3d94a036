/* Byte sizes on the command line, and their human formatting. Properties:
 * rs_size_parse agrees with an independent reading of size.h (decimal digits,
 * then optionally K, M, G or T in either case followed by nothing, "B" or
 * "iB"; anything else, and overflow, refused with RS_E_INVAL), and
 * rs_size_format always terminates inside a buffer of any size and shows a
 * value within rounding of the true one. */
#include "cli/size.h"
#include "fuzz_check.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

static int model_parse(const char *s, uint64_t *out)
{
	if (!isdigit((unsigned char)*s))
		return RS_E_INVAL;
	unsigned __int128 v = 0;
	bool overflow = false;
	for (; isdigit((unsigned char)*s); s++) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > UINT64_MAX) {
			overflow = true;
			v = UINT64_MAX;
		}
	}
	unsigned shift = 0;
	const char *units = "KMGT";
	const char *u = *s ? strchr(units, toupper((unsigned char)*s)) : NULL;
	if (u) {
		shift = 10 * (unsigned)(u - units + 1);
		s++;
		if (strcmp(s, "") && strcmp(s, "B") && strcmp(s, "iB"))
			return RS_E_INVAL;
	} else if (*s) {
		return RS_E_INVAL;
	}
	if (overflow || (v << shift) > UINT64_MAX)
		return RS_E_INVAL;
	*out = (uint64_t)(v << shift);
	return 0;
}

static void check_format(uint64_t bytes, size_t len)
{
	char *buf = malloc(len ? len : 1);
	FUZZ_CHECK(buf);
	if (len)
		buf[0] = 'x';
	const char *s = rs_size_format(bytes, buf, len);
	FUZZ_CHECK(s == buf);
	if (len)
		FUZZ_CHECK(strnlen(buf, len) < len);
	free(buf);

	char full[64];
	rs_size_format(bytes, full, sizeof(full));
	if (bytes < 1024) {
		char expect[32];
		snprintf(expect, sizeof(expect), "%llu B",
			 (unsigned long long)bytes);
		FUZZ_CHECK(strcmp(full, expect) == 0);
		return;
	}
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	char *end;
	double shown = strtod(full, &end);
	FUZZ_CHECK(end != full && *end == ' ');
	unsigned u = 0;
	while (u < 4 && strcmp(end + 1, units[u]))
		u++;
	FUZZ_CHECK(u < 4);
	double scaled = (double)bytes / pow(1024.0, u + 1);
	/* The largest unit that keeps the number at least 1. */
	FUZZ_CHECK(scaled >= 1.0 && (u == 3 || scaled < 1024.0));
	FUZZ_CHECK(fabs(shown - scaled) <= 0.05 + scaled * 1e-12);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	FUZZ_CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0';

	uint64_t got = 0xa5a5a5a5a5a5a5a5u, want = 0;
	int rc = rs_size_parse(text, &got);
	FUZZ_CHECK(rc == model_parse(text, &want));
	if (rc == 0)
		FUZZ_CHECK(got == want);
	else
		FUZZ_CHECK(got == 0xa5a5a5a5a5a5a5a5u);
	free(text);

	/* Format what was parsed (or the raw bytes), into a buffer whose size
	 * the first byte chooses. */
	uint64_t bytes = rc == 0 ? got : fuzz_le(data, size < 8 ? size : 8);
	check_format(bytes, size ? data[0] % 24 : 16);
	return 0;
}
