/* Shared by the harnesses: a property that must hold, checked in every build
 * (not assert(), which NDEBUG would remove), reported and turned into a crash
 * that libFuzzer records as a reproducer; what every failure reported through
 * a struct rs_error must look like; and little-endian field reads the
 * harnesses use to parse inputs independently of the code under test. */
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
