#include "proto/message.h"

#include "proto/descriptor.h"
#include "proto/wire.h"

#include "error.h"

const char *rs_msg_status_str(uint8_t status)
{
	switch (status) {
	case RS_MSG_OK:
		return "ok";
	case RS_MSG_OUT_OF_RANGE:
		return "range outside the log or the staging ring";
	case RS_MSG_NOT_CONTIGUOUS:
		return "batch does not start at the committed write offset";
	case RS_MSG_BAD_REQUEST:
		return "malformed request";
	case RS_MSG_ARCHIVE_DISK_FULL:
		return "the disk of the log's archive is full";
	case RS_MSG_ARCHIVE_LIMIT:
		return "the pool holds more than the archive may keep "
		       "(archive-max)";
	case RS_MSG_ARCHIVE_FAILED:
		return "the log's archive cannot be written";
	case RS_MSG_NO_ARCHIVE:
		return "the log has no archive";
	case RS_MSG_NO_ROOM:
		return "the pool has no room for the replacement beside the "
		       "content it keeps until the replacement is whole";
	case RS_MSG_NO_REPLACEMENT:
		return "no replacement under way (the receiver restarted)";
	default:
		return "unknown status";
	}
}

bool rs_msg_carries_key(uint8_t type)
{
	switch (type) {
	case RS_MSG_COMMIT:
	case RS_MSG_COMMIT_DONE:
	case RS_MSG_KEEPALIVE:
	case RS_MSG_KEEPALIVE_DONE:
	case RS_MSG_WINDOW_DONE:
	case RS_MSG_REBASE_DONE:
	case RS_MSG_REPLACE_DONE:
	case RS_MSG_SWITCH_DONE:
		return true;
	default:
		return false;
	}
}

size_t rs_msg_encode(const struct rs_msg *msg, void *buf, size_t len)
{
	struct rs_wire w = rs_wire_writer(buf, len);
	rs_wire_put_u32(&w, RS_PROTO_MAGIC);
	rs_wire_put_u8(&w, msg->type);
	rs_wire_put_u8(&w, msg->status);
	rs_wire_put_u16(&w, msg->flags);
	rs_wire_put_u32(&w, msg->seq);
	rs_wire_put_u32(&w, msg->key);
	if (msg->type == RS_MSG_AUTH) {
		rs_wire_put_bytes(&w, msg->mac, sizeof(msg->mac));
		return w.failed ? 0 : w.pos;
	}
	rs_wire_put_u64(&w, msg->offset);
	rs_wire_put_u64(&w, msg->length);
	rs_wire_put_u64(&w, msg->ring_offset);
	rs_wire_put_u64(&w, rs_msg_carries_key(msg->type) ? msg->key_end
							  : msg->hash);
	return w.failed ? 0 : w.pos;
}

/* What is malformed in a request (a sender's), or NULL; `known` false for
 * a type that is no request. */
static const char *request_check(const struct rs_msg *msg, bool *known)
{
	switch (msg->type) {
	case RS_MSG_COMMIT:
	case RS_MSG_STAGED_COMMIT:
	case RS_MSG_HASH:
	case RS_MSG_READ_STAGE:
	case RS_MSG_REBASE:
	case RS_MSG_REPLACE:
	case RS_MSG_SWITCH:
	case RS_MSG_WAIT:
	case RS_MSG_WINDOW:
		*known = true;
		break;
	default:
		*known = false;
		return 0;
	}
	if (msg->status != RS_MSG_OK)
		return "request carries a status";
	switch (msg->type) {
	case RS_MSG_COMMIT:
	case RS_MSG_STAGED_COMMIT:
	case RS_MSG_HASH:
	case RS_MSG_READ_STAGE:
		if (msg->length == 0)
			return "empty range";
		if (msg->length > UINT64_MAX - msg->offset)
			return "range wraps";
		if (msg->type != RS_MSG_STAGED_COMMIT &&
		    msg->type != RS_MSG_READ_STAGE && msg->ring_offset != 0)
			return "ring offset in a request without the ring";
		return 0;
	case RS_MSG_REBASE:
		return msg->length || msg->ring_offset
			   ? "range in a rebase request"
			   : 0;
	case RS_MSG_REPLACE:
	case RS_MSG_SWITCH:
		if (msg->ring_offset)
			return "ring offset in a request without the ring";
		if (msg->type == RS_MSG_REPLACE && msg->offset > 1)
			return "unknown replacement request";
		if (msg->type == RS_MSG_SWITCH && msg->length)
			return "range in a switch request";
		return 0;
	case RS_MSG_WINDOW:
		return msg->offset || msg->ring_offset
			   ? "range in a window request"
			   : 0;
	default: /* RS_MSG_WAIT */
		return msg->length > 1 || msg->ring_offset
			   ? "unknown wait request"
			   : 0;
	}
}

/* What is malformed in a reply (a receiver's) or a keepalive (either
 * way), or NULL; `known` false for a type that is neither. */
static const char *reply_check(const struct rs_msg *msg, bool *known)
{
	*known = true;
	switch (msg->type) {
	case RS_MSG_KEEPALIVE:
	case RS_MSG_KEEPALIVE_DONE:
		if (msg->offset || msg->length || msg->ring_offset)
			return "range in a keepalive";
		return msg->status == RS_MSG_OK ? 0
						: "keepalive carries a status";
	case RS_MSG_COMMIT_DONE:
		return msg->status > RS_MSG_BAD_REQUEST ? "unknown reply status"
							: 0;
	case RS_MSG_HASH_DONE:
	case RS_MSG_READ_STAGE_DONE:
		/* a range in the archive may not be readable */
		return msg->status > RS_MSG_BAD_REQUEST &&
			       msg->status != RS_MSG_ARCHIVE_FAILED
			   ? "unknown reply status"
			   : 0;
	case RS_MSG_REBASE_DONE:
		if (msg->status > RS_MSG_STATUS_LAST)
			return "unknown reply status";
		return msg->length || msg->ring_offset
			   ? "range in a rebase reply"
			   : 0;
	case RS_MSG_WAIT_DONE:
		if (msg->status != RS_MSG_OK)
			return "unknown reply status";
		if (msg->length > msg->offset || msg->ring_offset > msg->length)
			return "log positions out of order in a wait reply";
		return 0;
	case RS_MSG_WINDOW_DONE:
		if (msg->status != RS_MSG_OK &&
		    msg->status != RS_MSG_BAD_REQUEST)
			return "unknown reply status";
		if (msg->ring_offset || msg->length > UINT64_MAX - msg->offset)
			return "bad range in a window reply";
		return msg->status == RS_MSG_OK && !msg->key
			   ? "window reply without a key"
			   : 0;
	case RS_MSG_REPLACE_DONE:
	case RS_MSG_SWITCH_DONE:
		if (msg->status > RS_MSG_STATUS_LAST)
			return "unknown reply status";
		return msg->ring_offset
			   ? "ring offset in a reply without the ring"
			   : 0;
	default:
		*known = false;
		return 0;
	}
}

/* What is malformed in msg, or NULL. */
static const char *msg_get(const void *buf, size_t len, struct rs_msg *msg)
{
	if (len < RS_MSG_SIZE)
		return "message truncated";
	struct rs_wire w = rs_wire_reader(buf, len);
	if (rs_wire_get_u32(&w) != RS_PROTO_MAGIC)
		return "bad message magic";
	msg->type = rs_wire_get_u8(&w);
	msg->status = rs_wire_get_u8(&w);
	msg->flags = rs_wire_get_u16(&w);
	if (msg->flags & ~RS_MSG_FLAGS_KNOWN)
		return "unknown message flags";
	if (msg->flags && msg->type != RS_MSG_COMMIT)
		return "flags in a message that carries none";
	msg->seq = rs_wire_get_u32(&w);
	msg->key = rs_wire_get_u32(&w);
	if (msg->key && !rs_msg_carries_key(msg->type))
		return "window key in a message that carries none";
	if (msg->type == RS_MSG_AUTH) {
		rs_wire_get_bytes(&w, msg->mac, sizeof(msg->mac));
		return msg->status == RS_MSG_OK ? 0
						: "request carries a status";
	}
	msg->offset = rs_wire_get_u64(&w);
	msg->length = rs_wire_get_u64(&w);
	msg->ring_offset = rs_wire_get_u64(&w);
	uint64_t last = rs_wire_get_u64(&w);
	bool keyed = rs_msg_carries_key(msg->type);
	msg->key_end = keyed ? last : 0;
	msg->hash = keyed ? 0 : last;
	if (msg->type != RS_MSG_HASH_DONE && msg->type != RS_MSG_WAIT_DONE &&
	    msg->hash != 0)
		return "hash in a message that carries none";
	if (msg->key_end && !msg->key)
		return "window end without a key";
	if (msg->key_end &&
	    (msg->type == RS_MSG_COMMIT || msg->type == RS_MSG_KEEPALIVE))
		return "window end in a request";
	bool known;
	const char *why = reply_check(msg, &known);
	if (!known)
		why = request_check(msg, &known);
	return known ? why : "unknown message type";
}

int rs_msg_decode(const void *buf, size_t len, struct rs_msg *msg,
		  struct rs_error *err)
{
	const char *why = msg_get(buf, len, msg);
	return why ? rs_error_set(err, RS_E_MALFORMED, 0, "%s", why) : 0;
}
