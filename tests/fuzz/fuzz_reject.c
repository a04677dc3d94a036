/* The sender decoding why the receiver refused it. Properties: exactly the
 * rejects with known method bits are accepted (the reason may be any byte: it
 * is only ever named, as "unknown reason" if need be), an accepted one
 * re-encodes to the same bytes and decodes back the same, truncations are
 * refused and CM zero padding accepted; then the sender's "what would work"
 * message is built from the offered methods as shipper.c does. */
#include "proto/descriptor.h"
#include "fuzz_check.h"
#include "fuzz_method.h"

#include <string.h>

#define METHODS_KNOWN                                                          \
	(RS_METHOD_BIT(RS_METHOD_APM) | RS_METHOD_BIT(RS_METHOD_GPSPM) |       \
	 RS_METHOD_BIT(RS_METHOD_STAGED))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_reject_info rej;
	const char *why = rs_reject_decode(data, size, &rej, 0);

	bool header_ok =
	    size >= RS_REJECT_SIZE && fuzz_le(data, 4) == RS_PROTO_MAGIC &&
	    data[4] == RS_PROTO_VERSION && data[5] == RS_REJECT_SIZE;
	if (!header_ok) {
		FUZZ_CHECK(why && *why);
		return 0;
	}
	FUZZ_CHECK(!(data[7] & ~METHODS_KNOWN) == (why == NULL));
	if (why) {
		FUZZ_CHECK(*why);
		return 0;
	}
	FUZZ_CHECK(rej.reason == data[6] && rej.methods == data[7]);
	const char *reason = rs_reject_reason_str(rej.reason);
	FUZZ_CHECK(reason && *reason);

	uint8_t *enc = malloc(RS_REJECT_SIZE);
	FUZZ_CHECK(enc);
	FUZZ_CHECK(rs_reject_encode(&rej, enc, RS_REJECT_SIZE) ==
		   RS_REJECT_SIZE);
	FUZZ_CHECK(memcmp(enc, data, RS_REJECT_SIZE) == 0);
	struct rs_reject_info again;
	for (size_t n = 0; n < RS_REJECT_SIZE; n++)
		FUZZ_CHECK(rs_reject_decode(enc, n, &again, 0) != NULL);
	uint8_t padded[RS_REJECT_PRIVATE_MAX] = {0};
	memcpy(padded, enc, RS_REJECT_SIZE);
	memset(&again, 0xa5, sizeof(again));
	FUZZ_CHECK(rs_reject_decode(padded, sizeof(padded), &again, 0) == NULL);
	FUZZ_CHECK(again.reason == rej.reason && again.methods == rej.methods);
	free(enc);

	uint8_t *small = malloc(RS_REJECT_SIZE - 1);
	FUZZ_CHECK(small);
	FUZZ_CHECK(rs_reject_encode(&rej, small, RS_REJECT_SIZE - 1) == 0);
	free(small);

	size_t whylen = size > RS_REJECT_SIZE ? data[RS_REJECT_SIZE] : 512;
	for (unsigned m = 0; m < RS_METHOD_COUNT; m++)
		fuzz_method_choose(rej.methods, (enum rs_method)m, whylen);
	return 0;
}
