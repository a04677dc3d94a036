/* The sender decoding why the receiver refused it. Properties: exactly the
 * rejects with known method bits, in version 10 a range of versions the
 * receiver speaks that holds the reject's own, and a well-formed logs field
 * (129 bytes: a comma-separated text of letters, digits, '.', '_', '-' and
 * ',', then zeros) are accepted (the reason may be any byte: it is only
 * ever named, as "unknown reason" if need be), an accepted one re-encodes
 * to the same bytes (in version 10 when its range is this build's) and
 * decodes back the same, truncations are refused and CM zero padding
 * accepted; a reject of a version newer than ours is read by the bytes
 * version 10 keeps for every later one (reason, methods, the range that
 * holds its version); a refusal is reported as error.h says (RS_E_VERSION
 * exactly for a protocol version older than ours); then the sender's "what
 * would work" message is built from the offered methods as
 * commands/shipper.c does. */
#include "fuzz_check.h"
#include "fuzz_header.h"
#include "fuzz_method.h"
#include "proto/descriptor.h"

#include <string.h>

#define METHODS_KNOWN                                                          \
	(RS_METHOD_BIT(RS_METHOD_APM) | RS_METHOD_BIT(RS_METHOD_GPSPM) |       \
	 RS_METHOD_BIT(RS_METHOD_STAGED) | RS_METHOD_BIT(RS_METHOD_FLUSH))

/* The layout of version 10 (rpma-ship(7)): header (6), reason, methods, the
 * lowest and highest versions the receiver speaks, when to ask again
 * (u16), the names a refused sender may use (129). Version 9: no versions
 * nor hint, the names at 8. */
#define REJECT_SIZE 141
#define LOGS_AT(v) ((v) == 9 ? 8 : 12)
#define LOGS_FIELD 129
_Static_assert(REJECT_SIZE == RS_REJECT_SIZE, "reject size");
_Static_assert(LOGS_AT(10) + LOGS_FIELD == REJECT_SIZE, "the names end it");

/* A reject of a version newer than ours: read by its stable bytes. */
static int newer(const uint8_t *data, size_t size,
		 const struct rs_reject_info *rej, int rc)
{
	bool whole = size >= 10 && data[5] >= 10;
	bool range = whole && data[8] <= data[9] && data[9] >= data[4];
	FUZZ_CHECK(range == (rc == 0));
	if (rc == 0)
		FUZZ_CHECK(rej->version == data[4] && rej->reason == data[6] &&
			   rej->methods == data[7] &&
			   rej->min_version == data[8] &&
			   rej->max_version == data[9]);
	return 0;
}

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
	return a->version == b->version && a->reason == b->reason &&
	       a->methods == b->methods && a->retry_ms == b->retry_ms &&
	       a->min_version == b->min_version &&
	       a->max_version == b->max_version && !strcmp(a->logs, b->logs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_reject_info rej, scratch;
	struct rs_error err;
	fuzz_err_init(&err);
	int rc = rs_reject_decode(data, size, &rej, &err);
	/* Without an error record: the same answer. */
	FUZZ_CHECK(rs_reject_decode(data, size, &scratch, NULL) == rc);

	if (size >= 6 && fuzz_le(data, 4) == RS_PROTO_MAGIC &&
	    data[4] > FUZZ_PROTO_VERSION)
		return newer(data, size, &rej, rc);
	if (!fuzz_header_ok(data, size, REJECT_SIZE - 4, REJECT_SIZE)) {
		FUZZ_CHECK(rc == fuzz_header_errc(data, size));
		FUZZ_CHECK(fuzz_err_ok(rc, &err));
		return 0;
	}
	uint8_t v = data[4];
	bool range_ok = v == 9 || (data[8] <= v && v <= data[9]);
	bool fields_ok = !(data[7] & ~METHODS_KNOWN) && range_ok &&
			 logs_ok(data + LOGS_AT(v));
	FUZZ_CHECK(fields_ok == (rc == 0));
	if (rc) {
		FUZZ_CHECK(rc == RS_E_MALFORMED && fuzz_err_ok(rc, &err));
		return 0;
	}
	FUZZ_CHECK(rej.version == v && rej.reason == data[6] &&
		   rej.methods == data[7]);
	FUZZ_CHECK(rej.retry_ms == (v == 9 ? 0 : fuzz_le(data + 10, 2)));
	FUZZ_CHECK(!memcmp(rej.logs, data + LOGS_AT(v), LOGS_FIELD));
	const char *reason = rs_reject_reason_str(rej.reason);
	FUZZ_CHECK(reason && *reason);

	/* The encoder says this build's versions: the same bytes when they
	 * are the ones read. */
	size_t n = data[5];
	uint8_t *enc = malloc(n);
	FUZZ_CHECK(enc);
	FUZZ_CHECK(rs_reject_encode(&rej, enc, n) == n);
	/* (a reason version 9 does not know is told as its nearest) */
	bool ours = v == 9 ? data[6] != RS_REJECT_STARTING
			   : (data[8] == FUZZ_PROTO_VERSION_MIN &&
			      data[9] == FUZZ_PROTO_VERSION);
	FUZZ_CHECK((memcmp(enc, data, n) == 0) == ours);
	struct rs_reject_info again;
	for (size_t cut = 0; cut < n; cut++)
		FUZZ_CHECK(rs_reject_decode(enc, cut, &again, NULL) ==
			   RS_E_MALFORMED);
	uint8_t padded[RS_REJECT_PRIVATE_MAX] = {0};
	memcpy(padded, enc, n);
	memset(&again, 0xa5, sizeof(again));
	FUZZ_CHECK(rs_reject_decode(padded, sizeof(padded), &again, &err) == 0);
	FUZZ_CHECK(!ours || reject_equal(&again, &rej));
	free(enc);

	uint8_t *small = malloc(n - 1);
	FUZZ_CHECK(small);
	FUZZ_CHECK(rs_reject_encode(&rej, small, n - 1) == 0);
	free(small);

	for (unsigned m = 0; m < RS_METHOD_COUNT; m++)
		fuzz_method_choose(rej.methods, (enum rs_method)m);
	return 0;
}
