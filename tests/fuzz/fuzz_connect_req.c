/* The receiver decoding a sender's connect request from rdma_cm private data.
 * Properties: an accepted request is exactly what the encoder would produce
 * (round trip, byte for byte), every documented field check holds (flags,
 * method, the methods a writer can do, token, a reader that asks nothing
 * only a writer may, and the log name: in version 10 a field of 31 bytes,
 * the name then zeros; in version 9 a text field of 32 bytes with no
 * methods byte before the token; empty or following the name rule) and
 * every request satisfying
 * them is accepted, truncations are refused and CM zero padding is accepted;
 * a failure is reported as error.h says (RS_E_VERSION exactly for another
 * protocol version). The input byte after the request chooses what the
 * receiver allows, to run the method rule on it. */
#include "fuzz_check.h"
#include "fuzz_header.h"
#include "fuzz_method.h"
#include "proto/descriptor.h"

#include <string.h>

/* The layout of version 10 (rpma-ship(7)): header (6), flags, method, the
 * methods the sender can do, token (16), log name (31). Version 9: no
 * methods byte, the token at 8, the name a text field of 32 at 24. */
#define REQ_SIZE 56
#define METHODS_AT 8
#define TOKEN_AT(v) ((v) == 9 ? 8 : 9)
#define NAME_AT(v) ((v) == 9 ? 24 : 25)
#define NAME_FIELD 31
_Static_assert(REQ_SIZE == RS_CONNECT_REQ_SIZE, "connect request size");
_Static_assert(NAME_AT(10) + NAME_FIELD == REQ_SIZE, "the name ends it");
_Static_assert(NAME_AT(9) + NAME_FIELD + 1 == REQ_SIZE, "the name ends it");

/* The name field: the name, then zeros to its end (none after a full
 * one in version 10; a NUL at least in version 9). Its length, or -1. */
static long name_field(const uint8_t *p, uint8_t version)
{
	if (version == 9)
		return fuzz_text_field(p, NAME_FIELD + 1);
	size_t n = strnlen((const char *)p, NAME_FIELD);
	for (size_t i = n; i < NAME_FIELD; i++)
		if (p[i])
			return -1;
	return (long)n;
}

/* What a writer can do: said in version 10; in version 9 every method but
 * flush, unless it insists on flush (a reader nothing). */
static uint8_t methods_of(const uint8_t *data)
{
	uint8_t v = data[4], flags = data[6], method = data[7];
	if (v != 9)
		return data[METHODS_AT];
	if (flags & RS_CONNECT_VERIFY)
		return 0;
	return method == RS_METHOD_FLUSH
		   ? RS_METHOD_ALL
		   : RS_METHOD_ALL & ~RS_METHOD_BIT(RS_METHOD_FLUSH);
}

/* A writer can do some known methods, the one it insists on among them. */
static bool methods_ok(uint8_t flags, uint8_t method, uint8_t methods)
{
	if (methods & ~RS_METHOD_ALL)
		return false;
	if (flags & RS_CONNECT_VERIFY)
		return true;
	return methods && (method == RS_METHOD_AUTO ||
			   (method < RS_METHOD_COUNT &&
			    (methods & RS_METHOD_BIT(method))));
}

/* The documented checks of the fields after the header. */
static bool fields_ok(const uint8_t *data)
{
	uint8_t v = data[4], flags = data[6], method = data[7];
	uint8_t methods = methods_of(data);
	static const uint8_t zero_token[RS_SESSION_TOKEN_SIZE];
	bool token_ok =
	    (flags & RS_CONNECT_TAKEOVER) ||
	    !memcmp(data + TOKEN_AT(v), zero_token, sizeof(zero_token));
	long name_len = name_field(data + NAME_AT(v), v);
	bool name_ok = name_len == 0 ||
		       (name_len > 0 &&
			fuzz_log_name_ok(data + NAME_AT(v), (size_t)name_len));
	/* A reader truncates, replaces and takes over nothing. */
	bool reader_ok = !(flags & RS_CONNECT_VERIFY) ||
			 !(flags & (RS_CONNECT_TRUNCATE | RS_CONNECT_REPLACE |
				    RS_CONNECT_TAKEOVER));
	return !(flags & ~RS_CONNECT_FLAGS_KNOWN) && method < RS_METHOD_COUNT &&
	       methods_ok(flags, method, methods) && token_ok && name_ok &&
	       reader_ok;
}

static bool req_equal(const struct rs_connect_req *a,
		      const struct rs_connect_req *b)
{
	return a->version == b->version && a->flags == b->flags &&
	       a->method == b->method && a->methods == b->methods &&
	       !memcmp(&a->token, &b->token, sizeof(a->token)) &&
	       !strcmp(a->log_name, b->log_name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_connect_req req, scratch;
	struct rs_error err;
	fuzz_err_init(&err);
	int rc = rs_connect_req_decode(data, size, &req, &err);
	/* Without an error record: the same answer. */
	FUZZ_CHECK(rs_connect_req_decode(data, size, &scratch, NULL) == rc);

	/* The same input, parsed from the documented layout. */
	if (!fuzz_header_ok(data, size, REQ_SIZE, REQ_SIZE)) {
		FUZZ_CHECK(rc == fuzz_header_errc(data, size));
		FUZZ_CHECK(fuzz_err_ok(rc, &err));
		return 0;
	}
	FUZZ_CHECK(fields_ok(data) == (rc == 0));
	if (rc) {
		FUZZ_CHECK(rc == RS_E_MALFORMED && fuzz_err_ok(rc, &err));
		return 0;
	}
	uint8_t v = data[4];
	FUZZ_CHECK(req.version == v && req.flags == data[6] &&
		   req.method == data[7] && req.methods == methods_of(data));
	FUZZ_CHECK(!memcmp(req.token.bytes, data + TOKEN_AT(v),
			   RS_SESSION_TOKEN_SIZE));
	FUZZ_CHECK(strnlen(req.log_name, sizeof(req.log_name)) <
		   sizeof(req.log_name));
	FUZZ_CHECK(!strncmp(req.log_name, (const char *)data + NAME_AT(v),
			    NAME_FIELD));

	/* Round trip through an exactly sized buffer. */
	uint8_t *enc = malloc(RS_CONNECT_REQ_SIZE);
	FUZZ_CHECK(enc);
	FUZZ_CHECK(rs_connect_req_encode(&req, enc, RS_CONNECT_REQ_SIZE) ==
		   RS_CONNECT_REQ_SIZE);
	FUZZ_CHECK(memcmp(enc, data, RS_CONNECT_REQ_SIZE) == 0);
	struct rs_connect_req again;
	for (size_t n = 0; n < RS_CONNECT_REQ_SIZE; n++)
		FUZZ_CHECK(rs_connect_req_decode(enc, n, &again, NULL) ==
			   RS_E_MALFORMED);
	uint8_t padded[RS_CONNECT_PRIVATE_MAX] = {0};
	memcpy(padded, enc, RS_CONNECT_REQ_SIZE);
	memset(&again, 0xa5, sizeof(again));
	FUZZ_CHECK(
	    rs_connect_req_decode(padded, sizeof(padded), &again, &err) == 0);
	FUZZ_CHECK(req_equal(&again, &req));
	free(enc);

	/* Too small a buffer: refused, nothing written past it. */
	uint8_t *small = malloc(RS_CONNECT_REQ_SIZE - 1);
	FUZZ_CHECK(small);
	FUZZ_CHECK(
	    rs_connect_req_encode(&req, small, RS_CONNECT_REQ_SIZE - 1) == 0);
	free(small);

	uint8_t allowed = size > REQ_SIZE ? data[REQ_SIZE] : 0;
	fuzz_method_choose(allowed, (enum rs_method)req.method);
	return 0;
}
