/* The sender decoding why the receiver refused it. Properties: exactly the
 * rejects with known method bits and a well-formed logs field (129 bytes: a
 * comma-separated text of letters, digits, '.', '_', '-' and ',', then
 * zeros) are accepted (the reason may be any byte: it is only ever named, as
 * "unknown reason" if need be), an accepted one re-encodes to the same bytes
 * and decodes back the same, truncations are refused and CM zero padding
 * accepted, a refusal is reported as error.h says (RS_E_VERSION exactly for
 * another protocol version); then the sender's "what would work" message is
 * built from the offered methods as commands/shipper.c does. */
#include "fuzz_check.h"
#include "fuzz_header.h"
#include "fuzz_method.h"
#include "proto/descriptor.h"

#include <string.h>

#define METHODS_KNOWN                                                          \
	(RS_METHOD_BIT(RS_METHOD_APM) | RS_METHOD_BIT(RS_METHOD_GPSPM) |       \
	 RS_METHOD_BIT(RS_METHOD_STAGED) | RS_METHOD_BIT(RS_METHOD_FLUSH))

/* The layout of version 4 (rpma-ship(7)): header (6), reason, methods, the
 * names a refused sender may use (129). */
#define REJECT_SIZE 137
#define LOGS_AT 8
#define LOGS_FIELD 129
_Static_assert(REJECT_SIZE == RS_REJECT_SIZE, "reject size");
_Static_assert(LOGS_AT + LOGS_FIELD == REJECT_SIZE, "the names end it");

/* Only what a terminal shows as it is: names and commas. */
static bool logs_ok(const uint8_t *field)
{
	long len = fuzz_text_field(field, LOGS_FIELD);
	if (len < 0)
		return false;
	for (long i = 0; i < len; i++)
		if (!fuzz_name_char(field[i]) && field[i] != ',')
			return false;
	return true;
}

static bool reject_equal(const struct rs_reject_info *a,
			 const struct rs_reject_info *b)
{
	return a->reason == b->reason && a->methods == b->methods &&
	       !strcmp(a->logs, b->logs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_reject_info rej, scratch;
	struct rs_error err;
	fuzz_err_init(&err);
	int rc = rs_reject_decode(data, size, &rej, &err);
	/* Without an error record: the same answer. */
	FUZZ_CHECK(rs_reject_decode(data, size, &scratch, NULL) == rc);

	if (!fuzz_header_ok(data, size, REJECT_SIZE)) {
		FUZZ_CHECK(rc == fuzz_header_errc(data, size));
		FUZZ_CHECK(fuzz_err_ok(rc, &err));
		return 0;
	}
	bool fields_ok = !(data[7] & ~METHODS_KNOWN) && logs_ok(data + LOGS_AT);
	FUZZ_CHECK(fields_ok == (rc == 0));
	if (rc) {
		FUZZ_CHECK(rc == RS_E_MALFORMED && fuzz_err_ok(rc, &err));
		return 0;
	}
	FUZZ_CHECK(rej.reason == data[6] && rej.methods == data[7]);
	FUZZ_CHECK(!memcmp(rej.logs, data + LOGS_AT, LOGS_FIELD));
	const char *reason = rs_reject_reason_str(rej.reason);
	FUZZ_CHECK(reason && *reason);

	uint8_t *enc = malloc(RS_REJECT_SIZE);
	FUZZ_CHECK(enc);
	FUZZ_CHECK(rs_reject_encode(&rej, enc, RS_REJECT_SIZE) ==
		   RS_REJECT_SIZE);
	FUZZ_CHECK(memcmp(enc, data, RS_REJECT_SIZE) == 0);
	struct rs_reject_info again;
	for (size_t n = 0; n < RS_REJECT_SIZE; n++)
		FUZZ_CHECK(rs_reject_decode(enc, n, &again, NULL) ==
			   RS_E_MALFORMED);
	uint8_t padded[RS_REJECT_PRIVATE_MAX] = {0};
	memcpy(padded, enc, RS_REJECT_SIZE);
	memset(&again, 0xa5, sizeof(again));
	FUZZ_CHECK(rs_reject_decode(padded, sizeof(padded), &again, &err) == 0);
	FUZZ_CHECK(reject_equal(&again, &rej));
	free(enc);

	uint8_t *small = malloc(RS_REJECT_SIZE - 1);
	FUZZ_CHECK(small);
	FUZZ_CHECK(rs_reject_encode(&rej, small, RS_REJECT_SIZE - 1) == 0);
	free(small);

	for (unsigned m = 0; m < RS_METHOD_COUNT; m++)
		fuzz_method_choose(rej.methods, (enum rs_method)m);
	return 0;
}
