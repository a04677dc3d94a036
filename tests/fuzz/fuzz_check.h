/* Shared by the harnesses: a property that must hold, checked in every build
 * (not assert(), which NDEBUG would remove), reported and turned into a crash
 * that libFuzzer records as a reproducer; and little-endian field reads the
 * harnesses use to parse inputs independently of the code under test. */
#ifndef RS_FUZZ_CHECK_H
#define RS_FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: property violated: %s\n",      \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

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
