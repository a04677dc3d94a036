/* Shared by the harnesses: a property that must hold, checked in every build
 * (not assert(), which NDEBUG would remove), reported and turned into a crash
 * that libFuzzer records as a reproducer; what every failure reported through
 * a struct rs_error must look like; and little-endian field reads, text
 * fields and the log-name rule, which the harnesses use to parse inputs
 * independently of the code under test. */
#ifndef RS_FUZZ_CHECK_H
#define RS_FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: property violated: %s\n",      \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/* An error record full of garbage, so that a failure which leaves its code
 * or its text unset (or the text unterminated) shows. */
static inline void fuzz_err_init(struct rs_error *err)
{
	memset(err, 0xa5, sizeof(*err));
}

/* The error convention of error.h: a failure returns a negative enum rs_errc,
 * records that same code, and says what went wrong in one line of text that
 * is terminated inside err->msg. */
static inline bool fuzz_err_ok(int rc, const struct rs_error *err)
{
	size_t len = strnlen(err->msg, sizeof(err->msg));
	return rc < 0 && err->code == rc && len > 0 && len < sizeof(err->msg) &&
	       !memchr(err->msg, '\n', len);
}

/* n (<= 8) bytes at p, little-endian. */
static inline uint64_t fuzz_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Protocol version 3 text, written out again from rpma-ship(7) rather than
 * taken from the code under test. A log name: 1 to 31 letters, digits,
 * '.', '_' or '-', not starting with '.' or '-'. */
#define FUZZ_LOG_NAME_MAX 31

static inline bool fuzz_name_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

static inline bool fuzz_log_name_ok(const uint8_t *s, size_t n)
{
	if (n == 0 || n > FUZZ_LOG_NAME_MAX || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!fuzz_name_char(s[i]))
			return false;
	return true;
}

/* A fixed-size text field on the wire: the text, a NUL, then zeros to the
 * field's end. The text's length, or -1 when p[0, size) is not one. */
static inline long fuzz_text_field(const uint8_t *p, size_t size)
{
	const uint8_t *nul = memchr(p, 0, size);
	if (!nul)
		return -1;
	for (const uint8_t *q = nul; q < p + size; q++)
		if (*q)
			return -1;
	return (long)(nul - p);
}

/* A cursor over the fuzzer's bytes; reads past the end give zeros. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t fuzz_take(struct fuzz_in *in, size_t bytes)
{
	uint8_t b[8] = {0};
	for (size_t i = 0; i < bytes && i < 8 && in->n; i++) {
		b[i] = *in->p++;
		in->n--;
	}
	return fuzz_le(b, 8);
}

/* A heap copy of exactly len bytes, so that ASan sees any access past it. */
static inline uint8_t *fuzz_dup(const void *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);
	FUZZ_CHECK(q);
	for (size_t i = 0; i < len; i++)
		q[i] = ((const uint8_t *)p)[i];
	return q;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
