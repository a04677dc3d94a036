#include "proto/fields.h"

#include "error.h"
#include "proto/descriptor.h"

#include <string.h>

int rs_fields_malformed(struct rs_error *err, const char *why)
{
	return rs_error_set(err, RS_E_MALFORMED, 0, "%s", why);
}

void rs_fields_header_put(struct rs_wire *w, uint8_t version, uint8_t size)
{
	rs_wire_put_u32(w, RS_PROTO_MAGIC);
	rs_wire_put_u8(w, version ? version : RS_PROTO_VERSION);
	rs_wire_put_u8(w, size);
}

int rs_fields_header_get(struct rs_wire *w, uint8_t (*size_of)(uint8_t),
			 uint8_t *version, struct rs_error *err)
{
	if (w->len < 6)
		return rs_fields_malformed(err, "private data too short");
	if (rs_wire_get_u32(w) != RS_PROTO_MAGIC)
		return rs_fields_malformed(err,
					   "bad magic (not an rpma-ship peer)");
	*version = rs_wire_get_u8(w);
	if (!rs_proto_speaks(*version))
		return rs_error_set(
		    err, RS_E_VERSION, 0, "protocol version %u, not %u to %u",
		    *version, RS_PROTO_VERSION_MIN, RS_PROTO_VERSION);
	uint8_t size = size_of(*version);
	if (rs_wire_get_u8(w) != size)
		return rs_fields_malformed(err, "bad encoded length");
	if (w->len < size)
		return rs_fields_malformed(err, "private data truncated");
	return 0;
}

void rs_fields_text_put(struct rs_wire *w, const char *text, size_t size)
{
	uint8_t field[RS_REJECT_LOGS_MAX + 1] = {0};
	size_t n = strnlen(text, size - 1);
	memcpy(field, text, n);
	rs_wire_put_bytes(w, field, size);
}

int rs_fields_text_get(struct rs_wire *w, char *text, size_t size)
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

void rs_fields_name_put(struct rs_wire *w, const char *name)
{
	uint8_t field[RS_LOG_NAME_MAX] = {0};
	memcpy(field, name, strnlen(name, RS_LOG_NAME_MAX));
	rs_wire_put_bytes(w, field, sizeof(field));
}

int rs_fields_name_get(struct rs_wire *w, char *name)
{
	rs_wire_get_bytes(w, name, RS_LOG_NAME_MAX);
	name[RS_LOG_NAME_MAX] = '\0';
	size_t n = strlen(name);
	for (size_t i = n; i < RS_LOG_NAME_MAX; i++)
		if (name[i])
			return -1;
	return w->failed ? -1 : 0;
}
