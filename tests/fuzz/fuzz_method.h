/* The method rule applied to what a peer sent (accept, reject or connect):
 * checked against its documented behaviour, with an error record that starts
 * out full of garbage and with none at all. */
#ifndef RS_FUZZ_METHOD_H
#define RS_FUZZ_METHOD_H

#include "fuzz_check.h"
#include "proto/method.h"

#include <string.h>

/* What rs_method_choose must pick, or AUTO when nothing fits. */
static inline enum rs_method fuzz_method_expect(uint8_t allowed,
						enum rs_method requested)
{
	static const enum rs_method fastest_first[] = {
	    RS_METHOD_FLUSH, RS_METHOD_APM, RS_METHOD_GPSPM, RS_METHOD_STAGED};
	if (requested != RS_METHOD_AUTO)
		return allowed & RS_METHOD_BIT(requested) ? requested
							  : RS_METHOD_AUTO;
	for (size_t i = 0; i < 4; i++)
		if (allowed & RS_METHOD_BIT(fastest_first[i]))
			return fastest_first[i];
	return RS_METHOD_AUTO;
}

static inline void fuzz_method_choose(uint8_t allowed, enum rs_method requested)
{
	enum rs_method expect = fuzz_method_expect(allowed, requested);
	struct rs_error err;
	fuzz_err_init(&err);
	enum rs_method chosen = RS_METHOD_AUTO;
	int rc = rs_method_choose(allowed, requested, &chosen, &err);
	if (expect != RS_METHOD_AUTO) {
		FUZZ_CHECK(rc == 0);
		FUZZ_CHECK(chosen == expect);
	} else {
		FUZZ_CHECK(rc == RS_E_INVAL);
		FUZZ_CHECK(fuzz_err_ok(rc, &err));
	}
	/* Without an error record: the same answer. */
	enum rs_method again = RS_METHOD_AUTO;
	FUZZ_CHECK(rs_method_choose(allowed, requested, &again, NULL) == rc);
	FUZZ_CHECK(again == chosen);

	/* Names round-trip. */
	const char *name = rs_method_name(requested);
	enum rs_method parsed;
	FUZZ_CHECK(name && rs_method_parse(name, &parsed, &err) == 0);
	FUZZ_CHECK(parsed == requested);
	FUZZ_CHECK(rs_method_requirement(requested) != NULL);
}

#endif
