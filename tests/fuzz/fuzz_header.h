/* The header every descriptor encoding starts with (descriptor.h): a u32
 * magic, a u8 protocol version and the u8 encoded length. Read independently
 * of the decoders, to say what they must answer for it. */
#ifndef RS_FUZZ_HEADER_H
#define RS_FUZZ_HEADER_H

#include "fuzz_check.h"
#include "proto/descriptor.h"

/* The protocol version whose layout the harnesses' oracles spell out: a
 * new version must bring its oracles along. */
/* Version 10: version 9's (descriptors as version 6's, control messages
 * with flags), the connect request saying the methods a writer can do. */
#define FUZZ_PROTO_VERSION 10
_Static_assert(RS_PROTO_VERSION == FUZZ_PROTO_VERSION,
	       "the fuzz oracles know protocol version 10 only: update them");

/* data holds a whole encoding of `encoded` bytes behind a good header. */
static inline bool fuzz_header_ok(const uint8_t *data, size_t size,
				  uint8_t encoded)
{
	return size >= encoded && fuzz_le(data, 4) == RS_PROTO_MAGIC &&
	       data[4] == FUZZ_PROTO_VERSION && data[5] == encoded;
}

/* The code a decoder returns when the header is not ok: RS_E_VERSION exactly
 * when our magic comes with another protocol version, else RS_E_MALFORMED. */
static inline int fuzz_header_errc(const uint8_t *data, size_t size)
{
	bool other_version = size >= 6 && fuzz_le(data, 4) == RS_PROTO_MAGIC &&
			     data[4] != FUZZ_PROTO_VERSION;
	return other_version ? RS_E_VERSION : RS_E_MALFORMED;
}

#endif
