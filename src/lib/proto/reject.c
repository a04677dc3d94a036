/* Why the receiver refused a connection, in each protocol version this
 * build speaks: 9 (reason, methods, the logs a sender may use), 10 (the
 * lowest and highest versions the receiver speaks after the methods, then
 * a hint of when to ask again). From
 * version 10 on those four bytes stay where they are (bytes 6 to 9) in
 * every later version, so that a sender reads them from a receiver newer
 * than itself and can say which side to upgrade. */
#include "proto/descriptor.h"

#include "error.h"
#include "proto/fields.h"
#include "proto/wire.h"

_Static_assert(RS_REJECT_SIZE <= RS_REJECT_PRIVATE_MAX,
	       "reject reason must fit in rdma_cm private data");

/* The bytes before the log names from version 10 on. */
#define STABLE_PREFIX 10

static uint8_t reject_size(uint8_t version)
{
	return version >= 10 ? RS_REJECT_SIZE : RS_REJECT_SIZE - 4;
}

bool rs_reject_reason_passes(uint8_t reason)
{
	return reason == RS_REJECT_BUSY || reason == RS_REJECT_LIMIT ||
	       reason == RS_REJECT_STOPPING || reason == RS_REJECT_STARTING;
}

/* A reason a version 9 sender does not know, told as the nearest it does:
 * it retries after a receiver stopping as after one starting. */
static uint8_t reason_in(uint8_t version, uint8_t reason)
{
	return version < 10 && reason == RS_REJECT_STARTING ? RS_REJECT_STOPPING
							    : reason;
}

size_t rs_reject_encode(const struct rs_reject_info *info, void *buf,
			size_t len)
{
	struct rs_wire w = rs_wire_writer(buf, len);
	uint8_t v = info->version ? info->version : RS_PROTO_VERSION;
	if (!rs_proto_speaks(v))
		return 0;
	rs_fields_header_put(&w, v, reject_size(v));
	rs_wire_put_u8(&w, reason_in(v, info->reason));
	rs_wire_put_u8(&w, info->methods);
	if (v >= 10) {
		rs_wire_put_u8(&w, RS_PROTO_VERSION_MIN);
		rs_wire_put_u8(&w, RS_PROTO_VERSION);
		rs_wire_put_u16(&w, info->retry_ms);
	}
	rs_fields_text_put(&w, info->logs, RS_REJECT_LOGS_MAX + 1);
	return w.failed ? 0 : w.pos;
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

/* A reject of a version newer than ours: only its stable prefix. */
static int newer_reject(struct rs_wire *w, struct rs_reject_info *info,
			struct rs_error *err)
{
	uint8_t encoded = rs_wire_get_u8(w);
	if (encoded < STABLE_PREFIX || w->len < STABLE_PREFIX)
		return rs_fields_malformed(err, "private data truncated");
	info->reason = rs_wire_get_u8(w);
	info->methods = rs_wire_get_u8(w);
	info->min_version = rs_wire_get_u8(w);
	info->max_version = rs_wire_get_u8(w);
	if (info->min_version > info->max_version ||
	    info->max_version < info->version)
		return rs_fields_malformed(err, "bad version range in reject");
	return 0;
}

int rs_reject_decode(const void *buf, size_t len, struct rs_reject_info *info,
		     struct rs_error *err)
{
	struct rs_wire w = rs_wire_reader(buf, len);
	memset(info, 0, sizeof(*info));
	int rc = rs_fields_header_get(&w, reject_size, &info->version, err);
	if (rc == RS_E_VERSION && info->version > RS_PROTO_VERSION)
		return newer_reject(&w, info, err);
	if (rc)
		return rc;
	info->reason = rs_wire_get_u8(&w);
	info->methods = rs_wire_get_u8(&w);
	info->min_version = info->max_version = info->version;
	if (info->version >= 10) {
		info->min_version = rs_wire_get_u8(&w);
		info->max_version = rs_wire_get_u8(&w);
		if (info->min_version > info->max_version ||
		    info->version < info->min_version ||
		    info->version > info->max_version)
			return rs_fields_malformed(
			    err, "bad version range in reject");
		info->retry_ms = rs_wire_get_u16(&w);
	}
	if (info->methods & ~RS_METHOD_ALL)
		return rs_fields_malformed(err, "unknown methods in reject");
	if (rs_fields_text_get(&w, info->logs, RS_REJECT_LOGS_MAX + 1) ||
	    !log_list_valid(info->logs))
		return rs_fields_malformed(err, "bad log names in reject");
	return 0;
}
