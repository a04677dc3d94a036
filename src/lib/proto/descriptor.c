#include "proto/descriptor.h"

#include "proto/pool_layout.h"
#include "proto/wire.h"

#include "error.h"

#include <string.h>

_Static_assert(RS_CONNECT_REQ_SIZE <= RS_CONNECT_PRIVATE_MAX,
	       "connect request must fit in rdma_cm private data");
_Static_assert(RS_ACCEPT_INFO_SIZE <= RS_ACCEPT_PRIVATE_MAX,
	       "accept info must fit in rdma_cm private data");
_Static_assert(RS_CHALLENGE_SIZE <= RS_ACCEPT_PRIVATE_MAX,
	       "challenge must fit in rdma_cm private data");
_Static_assert(RS_REJECT_SIZE <= RS_REJECT_PRIVATE_MAX,
	       "reject reason must fit in rdma_cm private data");

#define RS_MR_USAGE_KNOWN (RS_MR_USAGE_WRITE_DST | RS_MR_USAGE_READ_SRC)
#define RS_METHODS_KNOWN RS_METHOD_ALL
#define RS_CREDITS_MAX 1024

const char *rs_reject_reason_str(uint8_t reason)
{
	switch (reason) {
	case RS_REJECT_BUSY:
		return "another sender is writing to this pool";
	case RS_REJECT_VERSION:
		return "protocol version not supported by the receiver";
	case RS_REJECT_BAD_REQUEST:
		return "the receiver could not parse our request";
	case RS_REJECT_METHOD:
		return "the requested persistence method is not allowed";
	case RS_REJECT_NOT_ALLOWED:
		return "this sender is not allowed to connect";
	case RS_REJECT_INTERNAL:
		return "the receiver failed to set up the connection";
	case RS_REJECT_NO_SUCH_LOG:
		return "the receiver serves no log of that name";
	case RS_REJECT_NAME_NEEDED:
		return "the receiver serves several logs; name one as "
		       "HOST/NAME";
	case RS_REJECT_LIMIT:
		return "the receiver serves as many senders as it may "
		       "(max-senders)";
	case RS_REJECT_STOPPING:
		return "the receiver is stopping";
	default:
		return "unknown reason";
	}
}

bool rs_log_name_valid(const char *name)
{
	size_t n = strnlen(name, RS_LOG_NAME_MAX + 1);
	if (n == 0 || n > RS_LOG_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			  c == '-';
		if (!ok)
			return false;
	}
	return true;
}

static int malformed(struct rs_error *err, const char *why)
{
	return rs_error_set(err, RS_E_MALFORMED, 0, "%s", why);
}

/* Every encoding starts with magic, version and its own encoded length. */
static void header_put(struct rs_wire *w, uint8_t size)
{
	rs_wire_put_u32(w, RS_PROTO_MAGIC);
	rs_wire_put_u8(w, RS_PROTO_VERSION);
	rs_wire_put_u8(w, size);
}

static int header_get(struct rs_wire *w, uint8_t size, struct rs_error *err)
{
	if (w->len < 6)
		return malformed(err, "private data too short");
	if (rs_wire_get_u32(w) != RS_PROTO_MAGIC)
		return malformed(err, "bad magic (not an rpma-ship peer)");
	if (rs_wire_get_u8(w) != RS_PROTO_VERSION)
		return rs_error_set(err, RS_E_VERSION, 0,
				    "unsupported protocol version");
	uint8_t encoded = rs_wire_get_u8(w);
	if (encoded != size)
		return malformed(err, "bad encoded length");
	if (w->len < size)
		return malformed(err, "private data truncated");
	return 0;
}

static void mr_desc_put(struct rs_wire *w, const struct rs_mr_desc *d)
{
	rs_wire_put_u64(w, d->addr);
	rs_wire_put_u64(w, d->length);
	rs_wire_put_u32(w, d->rkey);
	rs_wire_put_u8(w, d->usage);
}

static const char *mr_desc_get(struct rs_wire *w, struct rs_mr_desc *d)
{
	d->addr = rs_wire_get_u64(w);
	d->length = rs_wire_get_u64(w);
	d->rkey = rs_wire_get_u32(w);
	d->usage = rs_wire_get_u8(w);
	if (d->usage & ~RS_MR_USAGE_KNOWN)
		return "memory region has unknown usage bits";
	if (d->length > UINT64_MAX - d->addr)
		return "memory region wraps the address space";
	return 0;
}

/* A text field of fixed size: the text, then zeros to the end. */
static void text_put(struct rs_wire *w, const char *text, size_t size)
{
	uint8_t field[RS_REJECT_LOGS_MAX + 1] = {0};
	size_t n = strnlen(text, size - 1);
	memcpy(field, text, n);
	rs_wire_put_bytes(w, field, size);
}

/* Reads a text field; -1 unless it is NUL-terminated and zero after. */
static int text_get(struct rs_wire *w, char *text, size_t size)
{
	rs_wire_get_bytes(w, text, size);
	size_t n = strnlen(text, size);
	if (w->failed || n == size)
		return -1;
	for (size_t i = n; i < size; i++) {
		if (text[i])
			return -1;
	}
	return 0;
}

/* A log's name: RS_LOG_NAME_MAX bytes, zeros after the name (none when it
 * is that long). */
static void name_put(struct rs_wire *w, const char *name)
{
	uint8_t field[RS_LOG_NAME_MAX] = {0};
	memcpy(field, name, strnlen(name, RS_LOG_NAME_MAX));
	rs_wire_put_bytes(w, field, sizeof(field));
}

/* Reads it into name (RS_LOG_NAME_MAX + 1 bytes); -1 unless it is zero
 * after its end. */
static int name_get(struct rs_wire *w, char *name)
{
	rs_wire_get_bytes(w, name, RS_LOG_NAME_MAX);
	name[RS_LOG_NAME_MAX] = '\0';
	size_t n = strlen(name);
	for (size_t i = n; i < RS_LOG_NAME_MAX; i++)
		if (name[i])
			return -1;
	return w->failed ? -1 : 0;
}

static bool log_list_valid(const char *list)
{
	for (const char *p = list; *p; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			  c == '-' || c == ',';
		if (!ok)
			return false;
	}
	return true;
}

size_t rs_connect_req_encode(const struct rs_connect_req *req, void *buf,
			     size_t len)
{
	struct rs_wire w = rs_wire_writer(buf, len);
	header_put(&w, RS_CONNECT_REQ_SIZE);
	rs_wire_put_u8(&w, req->flags);
	rs_wire_put_u8(&w, req->method);
	rs_wire_put_u8(&w, req->methods);
	rs_wire_put_bytes(&w, req->token.bytes, sizeof(req->token.bytes));
	name_put(&w, req->log_name);
	return w.failed ? 0 : w.pos;
}

/* What the request asks, against itself: known flags and methods, a token
 * only to take a session over, nothing a reader may not ask. */
static int connect_req_check(const struct rs_connect_req *req,
			     struct rs_error *err)
{
	if (req->flags & ~RS_CONNECT_FLAGS_KNOWN)
		return malformed(err, "unknown connect flags");
	if (req->method >= RS_METHOD_COUNT)
		return malformed(err, "unknown persistence method");
	if (req->methods & ~RS_METHODS_KNOWN)
		return malformed(err, "unknown methods the sender can do");
	static const struct rs_session_token none;
	if (!(req->flags & RS_CONNECT_TAKEOVER) &&
	    memcmp(&req->token, &none, sizeof(none)))
		return malformed(err, "session token without a takeover");
	if (!(req->flags & RS_CONNECT_VERIFY)) {
		if (!req->methods)
			return malformed(err, "a writer that can do no method");
		if (req->method != RS_METHOD_AUTO &&
		    !(req->methods & RS_METHOD_BIT(req->method)))
			return malformed(err, "a writer insists on a method "
					      "it cannot do");
	}
	if ((req->flags & RS_CONNECT_VERIFY) &&
	    (req->flags & RS_CONNECT_WRITER_ONLY))
		return malformed(err, "a reading session asks to write");
	return 0;
}

int rs_connect_req_decode(const void *buf, size_t len,
			  struct rs_connect_req *req, struct rs_error *err)
{
	struct rs_wire w = rs_wire_reader(buf, len);
	int rc = header_get(&w, RS_CONNECT_REQ_SIZE, err);
	if (rc)
		return rc;
	req->flags = rs_wire_get_u8(&w);
	req->method = rs_wire_get_u8(&w);
	req->methods = rs_wire_get_u8(&w);
	rs_wire_get_bytes(&w, req->token.bytes, sizeof(req->token.bytes));
	if (name_get(&w, req->log_name) ||
	    (req->log_name[0] && !rs_log_name_valid(req->log_name)))
		return malformed(err, "bad log name");
	return connect_req_check(req, err);
}

size_t rs_accept_info_encode(const struct rs_accept_info *info, void *buf,
			     size_t len)
{
	struct rs_wire w = rs_wire_writer(buf, len);
	header_put(&w, RS_ACCEPT_INFO_SIZE);
	rs_wire_put_u8(&w, info->peer_flags);
	rs_wire_put_u8(&w, info->methods);
	rs_wire_put_u16(&w, info->credits);
	rs_wire_put_u16(&w, 0); /* reserved */
	mr_desc_put(&w, &info->data);
	mr_desc_put(&w, &info->write_offset);
	mr_desc_put(&w, &info->staging);
	mr_desc_put(&w, &info->data_read);
	mr_desc_put(&w, &info->staging_read);
	rs_wire_put_u32(&w, info->staging_slot_size);
	rs_wire_put_u64(&w, info->start_offset);
	rs_wire_put_u64(&w, info->end_offset);
	rs_wire_put_u64(&w, info->write_offset_value);
	rs_wire_put_bytes(&w, info->pool_uuid, sizeof(info->pool_uuid));
	rs_wire_put_bytes(&w, info->token.bytes, sizeof(info->token.bytes));
	rs_wire_put_u32(&w, info->peer_timeout_ms);
	rs_wire_put_u64(&w, info->log_base);
	return w.failed ? 0 : w.pos;
}

/* The grant's terms: flags, methods (none only in a read-only grant, which
 * shows no region to write), credits, the peer timeout. */
static int accept_terms_check(const struct rs_accept_info *info,
			      struct rs_error *err)
{
	if (info->peer_flags & ~RS_PEER_FLAGS_KNOWN)
		return malformed(err, "unknown peer configuration flags");
	if (info->peer_flags & RS_PEER_READ_ONLY) {
		if (info->methods || info->data.length ||
		    info->write_offset.length || info->staging.length)
			return malformed(err, "a read-only grant to write");
	} else if (info->methods == 0 || (info->methods & ~RS_METHODS_KNOWN)) {
		return malformed(err, "no known persistence method allowed");
	}
	if ((info->peer_flags & RS_PEER_WINDOWS) &&
	    ((info->peer_flags & RS_PEER_READ_ONLY) || info->data.rkey ||
	     (info->methods & RS_METHOD_SENDER_COMMITS) ||
	     !(info->methods & RS_METHOD_BIT(RS_METHOD_GPSPM))))
		return malformed(err, "a window grant with a key or without "
				      "gpspm");
	if (info->credits == 0 || info->credits > RS_CREDITS_MAX)
		return malformed(err, "credits out of range");
	if (info->peer_timeout_ms < RS_PEER_TIMEOUT_MIN_MS)
		return malformed(err, "peer timeout too short");
	return 0;
}

/* The regions of the log itself (data_len bytes): written in place by the
 * direct methods, apm's offset word, read by a reader. */
static int accept_log_regions_check(const struct rs_accept_info *info,
				    uint64_t data_len, struct rs_error *err)
{
	bool direct = info->methods & (RS_METHOD_SENDER_COMMITS |
				       RS_METHOD_BIT(RS_METHOD_GPSPM));
	if (direct && (info->data.length != data_len ||
		       !(info->data.usage & RS_MR_USAGE_WRITE_DST)))
		return malformed(err, "data region does not match the log");
	if ((info->methods & RS_METHOD_SENDER_COMMITS) &&
	    info->write_offset.length != 8)
		return malformed(err, "write-offset region is not 8 bytes");
	if ((info->methods & RS_METHOD_BIT(RS_METHOD_APM)) &&
	    !(info->peer_flags & RS_PEER_DIRECT_WRITE_TO_PMEM))
		return malformed(err,
				 "APM offered without direct write to PMem");
	/* A reader's is the committed prefix when it was granted. */
	if (info->data_read.length != 0 &&
	    (info->data_read.length > data_len ||
	     !(info->data_read.usage & RS_MR_USAGE_READ_SRC)))
		return malformed(err,
				 "readable data region does not match the log");
	return 0;
}

/* The rings: a reader's readable one, the staged method's writable one. */
static int accept_rings_check(const struct rs_accept_info *info,
			      struct rs_error *err)
{
	/* A slot per credit, as the staging ring (which a reader is not
	 * shown). */
	if (info->staging_read.length != 0 &&
	    (info->staging_read.length !=
		 (uint64_t)info->staging_slot_size * info->credits ||
	     info->staging_slot_size == 0 ||
	     !(info->staging_read.usage & RS_MR_USAGE_READ_SRC)))
		return malformed(
		    err, "readable staging region does not match the ring");
	if (!(info->methods & RS_METHOD_BIT(RS_METHOD_STAGED)))
		return 0;
	uint64_t ring = info->staging.length;
	uint32_t slot = info->staging_slot_size;
	if (slot == 0 || ring < slot || ring % slot != 0)
		return malformed(err, "staging ring geometry is inconsistent");
	if (ring / slot < info->credits)
		return malformed(err,
				 "staging ring has fewer slots than credits");
	if (!(info->staging.usage & RS_MR_USAGE_WRITE_DST))
		return malformed(err, "staging region is not writable");
	return 0;
}

/* Checks that what the accept grants is consistent with itself. */
static int accept_info_check(const struct rs_accept_info *info,
			     struct rs_error *err)
{
	int rc = accept_terms_check(info, err);
	/* The log geometry only; the mapping size is the receiver's. */
	if (!rc)
		rc = rs_log_geometry_check(info->start_offset, info->end_offset,
					   info->write_offset_value,
					   info->end_offset, err);
	if (rc)
		return rc;
	uint64_t data_len = info->end_offset - info->start_offset;
	if (info->log_base > UINT64_MAX - data_len)
		return malformed(err, "log position out of range");
	rc = accept_log_regions_check(info, data_len, err);
	return rc ? rc : accept_rings_check(info, err);
}

int rs_accept_info_decode(const void *buf, size_t len,
			  struct rs_accept_info *info, struct rs_error *err)
{
	struct rs_wire w = rs_wire_reader(buf, len);
	int rc = header_get(&w, RS_ACCEPT_INFO_SIZE, err);
	if (rc)
		return rc;
	info->peer_flags = rs_wire_get_u8(&w);
	info->methods = rs_wire_get_u8(&w);
	info->credits = rs_wire_get_u16(&w);
	if (rs_wire_get_u16(&w) != 0 && !w.failed)
		return malformed(err, "reserved accept field is not zero");
	const char *mr_why = mr_desc_get(&w, &info->data);
	if (!mr_why)
		mr_why = mr_desc_get(&w, &info->write_offset);
	if (!mr_why)
		mr_why = mr_desc_get(&w, &info->staging);
	if (!mr_why)
		mr_why = mr_desc_get(&w, &info->data_read);
	if (!mr_why)
		mr_why = mr_desc_get(&w, &info->staging_read);
	if (mr_why)
		return malformed(err, mr_why);
	info->staging_slot_size = rs_wire_get_u32(&w);
	info->start_offset = rs_wire_get_u64(&w);
	info->end_offset = rs_wire_get_u64(&w);
	info->write_offset_value = rs_wire_get_u64(&w);
	rs_wire_get_bytes(&w, info->pool_uuid, sizeof(info->pool_uuid));
	rs_wire_get_bytes(&w, info->token.bytes, sizeof(info->token.bytes));
	info->peer_timeout_ms = rs_wire_get_u32(&w);
	info->log_base = rs_wire_get_u64(&w);
	if (w.failed)
		return malformed(err, "private data truncated");
	return accept_info_check(info, err);
}

bool rs_reject_reason_passes(uint8_t reason)
{
	return reason == RS_REJECT_BUSY || reason == RS_REJECT_LIMIT ||
	       reason == RS_REJECT_STOPPING;
}

size_t rs_reject_encode(const struct rs_reject_info *info, void *buf,
			size_t len)
{
	struct rs_wire w = rs_wire_writer(buf, len);
	header_put(&w, RS_REJECT_SIZE);
	rs_wire_put_u8(&w, info->reason);
	rs_wire_put_u8(&w, info->methods);
	text_put(&w, info->logs, RS_REJECT_LOGS_MAX + 1);
	return w.failed ? 0 : w.pos;
}

int rs_reject_decode(const void *buf, size_t len, struct rs_reject_info *info,
		     struct rs_error *err)
{
	struct rs_wire w = rs_wire_reader(buf, len);
	int rc = header_get(&w, RS_REJECT_SIZE, err);
	if (rc)
		return rc;
	info->reason = rs_wire_get_u8(&w);
	info->methods = rs_wire_get_u8(&w);
	if (info->methods & ~RS_METHODS_KNOWN)
		return malformed(err, "unknown methods in reject");
	if (text_get(&w, info->logs, RS_REJECT_LOGS_MAX + 1) ||
	    !log_list_valid(info->logs))
		return malformed(err, "bad log names in reject");
	return 0;
}

size_t rs_challenge_encode(const struct rs_challenge *c, void *buf, size_t len)
{
	struct rs_wire w = rs_wire_writer(buf, len);
	header_put(&w, RS_CHALLENGE_SIZE);
	rs_wire_put_u16(&w, 0); /* reserved */
	rs_wire_put_bytes(&w, c->nonce, sizeof(c->nonce));
	return w.failed ? 0 : w.pos;
}

int rs_challenge_decode(const void *buf, size_t len, struct rs_challenge *c,
			struct rs_error *err)
{
	struct rs_wire w = rs_wire_reader(buf, len);
	int rc = header_get(&w, RS_CHALLENGE_SIZE, err);
	if (rc)
		return rc;
	if (rs_wire_get_u16(&w) != 0)
		return malformed(err, "reserved challenge field is not zero");
	rs_wire_get_bytes(&w, c->nonce, sizeof(c->nonce));
	return w.failed ? malformed(err, "private data truncated") : 0;
}
