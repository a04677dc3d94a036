/* The method rule applied to what a peer sent (accept, reject or connect):
 * checked against its documented behaviour with a reason buffer of an exact,
 * fuzzer-chosen size. */
#ifndef RS_FUZZ_METHOD_H
#define RS_FUZZ_METHOD_H

#include "fuzz_check.h"
#include "proto/method.h"

#include <string.h>

static inline void fuzz_method_choose(uint8_t allowed, enum rs_method requested,
				      size_t whylen)
{
	static const enum rs_method fastest_first[] = {
	    RS_METHOD_APM, RS_METHOD_GPSPM, RS_METHOD_STAGED};
	enum rs_method expect = RS_METHOD_AUTO;
	if (requested != RS_METHOD_AUTO) {
		if (allowed & RS_METHOD_BIT(requested))
			expect = requested;
	} else {
		for (size_t i = 0; i < 3 && expect == RS_METHOD_AUTO; i++)
			if (allowed & RS_METHOD_BIT(fastest_first[i]))
				expect = fastest_first[i];
	}

	char *why = malloc(whylen ? whylen : 1);
	FUZZ_CHECK(why);
	enum rs_method chosen = RS_METHOD_AUTO;
	int rc = rs_method_choose(allowed, requested, &chosen, why, whylen);
	if (expect != RS_METHOD_AUTO) {
		FUZZ_CHECK(rc == 0);
		FUZZ_CHECK(chosen == expect);
	} else {
		FUZZ_CHECK(rc == -1);
		if (whylen > 0)
			FUZZ_CHECK(strnlen(why, whylen) < whylen);
		if (whylen > 1)
			FUZZ_CHECK(why[0] != '\0');
	}
	free(why);

	/* Names round-trip. */
	const char *name = rs_method_name(requested);
	enum rs_method parsed;
	FUZZ_CHECK(name && rs_method_parse(name, &parsed) == 0);
	FUZZ_CHECK(parsed == requested);
	FUZZ_CHECK(rs_method_requirement(requested) != NULL);
}

#endif
