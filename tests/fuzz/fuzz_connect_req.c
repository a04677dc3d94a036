/* The receiver decoding a sender's connect request from rdma_cm private data.
 * Properties: an accepted request is exactly what the encoder would produce
 * (round trip, byte for byte), every documented field check holds and every
 * request satisfying them is accepted, truncations are refused and CM zero
 * padding is accepted. Trailing input bytes choose what the receiver allows,
 * to run the method rule on the decoded request. */
#include "proto/descriptor.h"
#include "fuzz_check.h"
#include "fuzz_method.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_connect_req req;
	const char *why = rs_connect_req_decode(data, size, &req, 0);

	/* The same input, parsed from the documented layout. */
	bool header_ok =
	    size >= RS_CONNECT_REQ_SIZE && fuzz_le(data, 4) == RS_PROTO_MAGIC &&
	    data[4] == RS_PROTO_VERSION && data[5] == RS_CONNECT_REQ_SIZE;
	if (!header_ok) {
		FUZZ_CHECK(why && *why);
		return 0;
	}
	uint8_t flags = data[6], method = data[7];
	bool fields_ok =
	    !(flags & ~RS_CONNECT_FLAGS_KNOWN) && method < RS_METHOD_COUNT;
	FUZZ_CHECK(fields_ok == (why == NULL));
	if (why) {
		FUZZ_CHECK(*why);
		return 0;
	}
	FUZZ_CHECK(req.flags == flags && req.method == method);

	/* Round trip through an exactly sized buffer. */
	uint8_t *enc = malloc(RS_CONNECT_REQ_SIZE);
	FUZZ_CHECK(enc);
	FUZZ_CHECK(rs_connect_req_encode(&req, enc, RS_CONNECT_REQ_SIZE) ==
		   RS_CONNECT_REQ_SIZE);
	FUZZ_CHECK(memcmp(enc, data, RS_CONNECT_REQ_SIZE) == 0);
	struct rs_connect_req again;
	for (size_t n = 0; n < RS_CONNECT_REQ_SIZE; n++)
		FUZZ_CHECK(rs_connect_req_decode(enc, n, &again, 0) != NULL);
	uint8_t padded[RS_CONNECT_PRIVATE_MAX] = {0};
	memcpy(padded, enc, RS_CONNECT_REQ_SIZE);
	memset(&again, 0xa5, sizeof(again));
	FUZZ_CHECK(rs_connect_req_decode(padded, sizeof(padded), &again, 0) ==
		   NULL);
	FUZZ_CHECK(again.flags == req.flags && again.method == req.method);
	free(enc);

	/* Too small a buffer: refused, nothing written past it. */
	uint8_t *small = malloc(RS_CONNECT_REQ_SIZE - 1);
	FUZZ_CHECK(small);
	FUZZ_CHECK(
	    rs_connect_req_encode(&req, small, RS_CONNECT_REQ_SIZE - 1) == 0);
	free(small);

	uint8_t allowed = size > 8 ? data[8] : 0;
	size_t whylen = size > 9 ? data[9] : 256;
	fuzz_method_choose(allowed, (enum rs_method)req.method, whylen);
	return 0;
}
