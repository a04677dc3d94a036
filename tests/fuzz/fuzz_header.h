/* The header every descriptor encoding starts with (descriptor.h): a u32
 * magic, a u8 protocol version and the u8 encoded length. Read independently
 * of the decoders, to say what they must answer for it. */
#ifndef RS_FUZZ_HEADER_H
#define RS_FUZZ_HEADER_H

#include "fuzz_check.h"
#include "proto/descriptor.h"

/* The protocol version whose layout the harnesses' oracles spell out: a
 * new version must bring its oracles along. */
/* Versions 9 (descriptors as version 6's, control messages with flags)
 * and 10 (the connect request saying the methods a writer can do, a reject
 * the versions the receiver speaks). */
#define FUZZ_PROTO_VERSION_MIN 9
#define FUZZ_PROTO_VERSION 10
_Static_assert(RS_PROTO_VERSION == FUZZ_PROTO_VERSION &&
		   RS_PROTO_VERSION_MIN == FUZZ_PROTO_VERSION_MIN,
	       "the fuzz oracles know protocol versions 9 and 10 only: "
	       "update them");

static inline bool fuzz_version_ok(uint8_t v)
{
	return v >= FUZZ_PROTO_VERSION_MIN && v <= FUZZ_PROTO_VERSION;
}

/* data holds a whole encoding behind a good header: of encoded9 bytes in
 * version 9, encoded10 in version 10. */
static inline bool fuzz_header_ok(const uint8_t *data, size_t size,
				  uint8_t encoded9, uint8_t encoded10)
{
	if (size < 6 || fuzz_le(data, 4) != RS_PROTO_MAGIC ||
	    !fuzz_version_ok(data[4]))
		return false;
	uint8_t encoded = data[4] == 9 ? encoded9 : encoded10;
	return size >= encoded && data[5] == encoded;
}

/* The code a decoder returns when the header is not ok: RS_E_VERSION exactly
 * when our magic comes with another protocol version, else RS_E_MALFORMED. */
static inline int fuzz_header_errc(const uint8_t *data, size_t size)
{
	bool other_version = size >= 6 && fuzz_le(data, 4) == RS_PROTO_MAGIC &&
			     !fuzz_version_ok(data[4]);
	return other_version ? RS_E_VERSION : RS_E_MALFORMED;
}

#endif
