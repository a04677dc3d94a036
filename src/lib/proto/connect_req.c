/* The sender's connect request, in each protocol version this build
 * speaks: 9 (its log name a 32-byte text field), 10 (the methods a writer
 * can do at byte 8, its log name's field 31 bytes). */
#include "proto/descriptor.h"

#include "error.h"
#include "proto/fields.h"
#include "proto/wire.h"

#include <string.h>

_Static_assert(RS_CONNECT_REQ_SIZE <= RS_CONNECT_PRIVATE_MAX,
	       "connect request must fit in rdma_cm private data");

/* 56 bytes in every version so far. */
static uint8_t req_size(uint8_t version)
{
	(void)version;
	return RS_CONNECT_REQ_SIZE;
}

size_t rs_connect_req_encode(const struct rs_connect_req *req, void *buf,
			     size_t len)
{
	struct rs_wire w = rs_wire_writer(buf, len);
	uint8_t v = req->version ? req->version : RS_PROTO_VERSION;
	if (!rs_proto_speaks(v))
		return 0;
	rs_fields_header_put(&w, v, req_size(v));
	rs_wire_put_u8(&w, req->flags);
	rs_wire_put_u8(&w, req->method);
	if (v >= 10)
		rs_wire_put_u8(&w, req->methods);
	rs_wire_put_bytes(&w, req->token.bytes, sizeof(req->token.bytes));
	if (v >= 10)
		rs_fields_name_put(&w, req->log_name);
	else
		rs_fields_text_put(&w, req->log_name, RS_LOG_NAME_MAX + 1);
	return w.failed ? 0 : w.pos;
}

/* A version 9 sender does not say what it can do: every method but flush,
 * which it may lack (its device, its build), unless it insists on flush;
 * a reader nothing. */
static uint8_t methods_of_version_9(const struct rs_connect_req *req)
{
	if (req->flags & RS_CONNECT_VERIFY)
		return 0;
	if (req->method == RS_METHOD_FLUSH)
		return RS_METHOD_ALL;
	return RS_METHOD_ALL & (uint8_t)~RS_METHOD_BIT(RS_METHOD_FLUSH);
}

uint8_t rs_connect_req_usable(const struct rs_connect_req *req, uint8_t offered)
{
	const uint8_t flush = RS_METHOD_BIT(RS_METHOD_FLUSH);
	if (req->version == 9 && req->method == RS_METHOD_AUTO &&
	    !(req->flags & RS_CONNECT_VERIFY) && offered == flush)
		return flush;
	return offered & req->methods;
}

/* What the request asks, against itself: known flags and methods, a token
 * only to take a session over, nothing a reader may not ask. */
static int connect_req_check(const struct rs_connect_req *req,
			     struct rs_error *err)
{
	if (req->flags & ~RS_CONNECT_FLAGS_KNOWN)
		return rs_fields_malformed(err, "unknown connect flags");
	if (req->method >= RS_METHOD_COUNT)
		return rs_fields_malformed(err, "unknown persistence method");
	if (req->methods & ~RS_METHOD_ALL)
		return rs_fields_malformed(err,
					   "unknown methods the sender can do");
	static const struct rs_session_token none;
	if (!(req->flags & RS_CONNECT_TAKEOVER) &&
	    memcmp(&req->token, &none, sizeof(none)))
		return rs_fields_malformed(err,
					   "session token without a takeover");
	if (!(req->flags & RS_CONNECT_VERIFY)) {
		if (!req->methods)
			return rs_fields_malformed(
			    err, "a writer that can do no method");
		if (req->method != RS_METHOD_AUTO &&
		    !(req->methods & RS_METHOD_BIT(req->method)))
			return rs_fields_malformed(err, "a writer insists on a "
							"method it cannot do");
	}
	if ((req->flags & RS_CONNECT_VERIFY) &&
	    (req->flags & RS_CONNECT_WRITER_ONLY))
		return rs_fields_malformed(err,
					   "a reading session asks to write");
	return 0;
}

int rs_connect_req_decode(const void *buf, size_t len,
			  struct rs_connect_req *req, struct rs_error *err)
{
	struct rs_wire w = rs_wire_reader(buf, len);
	memset(req, 0, sizeof(*req));
	int rc = rs_fields_header_get(&w, req_size, &req->version, err);
	if (rc)
		return rc;
	req->flags = rs_wire_get_u8(&w);
	req->method = rs_wire_get_u8(&w);
	if (req->version >= 10)
		req->methods = rs_wire_get_u8(&w);
	else
		req->methods = methods_of_version_9(req);
	rs_wire_get_bytes(&w, req->token.bytes, sizeof(req->token.bytes));
	bool name_bad = req->version >= 10
			    ? rs_fields_name_get(&w, req->log_name) != 0
			    : rs_fields_text_get(&w, req->log_name,
						 RS_LOG_NAME_MAX + 1) != 0;
	if (name_bad || (req->log_name[0] && !rs_log_name_valid(req->log_name)))
		return rs_fields_malformed(err, "bad log name");
	return connect_req_check(req, err);
}
