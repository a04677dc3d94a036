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

/* What is malformed in the fields of a message of one type, or NULL. */
typedef const char *(*fields_check)(const struct rs_msg *msg);

static const char no_ring_request[] =
    "ring offset in a request without the ring";

/* A range of the log to persist, hash or read. */
static const char *range_request(const struct rs_msg *msg)
{
	if (msg->length == 0)
		return "empty range";
	if (msg->length > UINT64_MAX - msg->offset)
		return "range wraps";
	return 0;
}

/* As range_request, of a request that has nothing in the ring. */
static const char *ringless_range_request(const struct rs_msg *msg)
{
	const char *why = range_request(msg);
	if (!why && msg->ring_offset != 0)
		return no_ring_request;
	return why;
}

static const char *rebase_request(const struct rs_msg *msg)
{
	return msg->length || msg->ring_offset ? "range in a rebase request"
					       : 0;
}

static const char *replace_request(const struct rs_msg *msg)
{
	if (msg->ring_offset)
		return no_ring_request;
	return msg->offset > 1 ? "unknown replacement request" : 0;
}

static const char *switch_request(const struct rs_msg *msg)
{
	if (msg->ring_offset)
		return no_ring_request;
	return msg->length ? "range in a switch request" : 0;
}

static const char *window_request(const struct rs_msg *msg)
{
	return msg->offset || msg->ring_offset ? "range in a window request"
					       : 0;
}

static const char *wait_request(const struct rs_msg *msg)
{
	return msg->length > 1 || msg->ring_offset ? "unknown wait request" : 0;
}

/* Either way; its range before its status. */
static const char *keepalive(const struct rs_msg *msg)
{
	if (msg->offset || msg->length || msg->ring_offset)
		return "range in a keepalive";
	return msg->status == RS_MSG_OK ? 0 : "keepalive carries a status";
}

static const char *rebase_reply(const struct rs_msg *msg)
{
	return msg->length || msg->ring_offset ? "range in a rebase reply" : 0;
}

static const char *wait_reply(const struct rs_msg *msg)
{
	if (msg->length > msg->offset || msg->ring_offset > msg->length)
		return "log positions out of order in a wait reply";
	return 0;
}

static const char *window_reply(const struct rs_msg *msg)
{
	if (msg->ring_offset || msg->length > UINT64_MAX - msg->offset)
		return "bad range in a window reply";
	return msg->status == RS_MSG_OK && !msg->key
		   ? "window reply without a key"
		   : 0;
}

/* Of a replacement's replies. */
static const char *ringless_reply(const struct rs_msg *msg)
{
	return msg->ring_offset ? "ring offset in a reply without the ring" : 0;
}

/* The statuses a message may carry, as a set. */
#define STATUS(s) (1u << (s))
#define STATUSES_UP_TO(s) ((STATUS(s) << 1) - 1)
#define OK_ONLY STATUS(RS_MSG_OK)
#define DONE_STATUSES STATUSES_UP_TO(RS_MSG_BAD_REQUEST)
/* a range in the archive may not be readable */
#define READ_STATUSES (DONE_STATUSES | STATUS(RS_MSG_ARCHIVE_FAILED))
#define KNOWN_STATUSES STATUSES_UP_TO(RS_MSG_STATUS_LAST)

static const char request_status[] = "request carries a status";
static const char reply_status[] = "unknown reply status";

/* What a message of one type may carry: its statuses, checked first (0:
 * its fields' check says), and its fields. */
struct msg_rule {
	uint32_t statuses;
	const char *bad_status;
	fields_check fields; /* NULL: any */
};

/* Every type but RS_MSG_AUTH (its own layout): a zero row is no type. */
static const struct msg_rule msg_rules[] = {
    [RS_MSG_COMMIT] = {OK_ONLY, request_status, ringless_range_request},
    [RS_MSG_STAGED_COMMIT] = {OK_ONLY, request_status, range_request},
    [RS_MSG_COMMIT_DONE] = {DONE_STATUSES, reply_status, 0},
    [RS_MSG_HASH] = {OK_ONLY, request_status, ringless_range_request},
    [RS_MSG_HASH_DONE] = {READ_STATUSES, reply_status, 0},
    [RS_MSG_READ_STAGE] = {OK_ONLY, request_status, range_request},
    [RS_MSG_READ_STAGE_DONE] = {READ_STATUSES, reply_status, 0},
    [RS_MSG_KEEPALIVE] = {0, 0, keepalive},
    [RS_MSG_KEEPALIVE_DONE] = {0, 0, keepalive},
    [RS_MSG_REBASE] = {OK_ONLY, request_status, rebase_request},
    [RS_MSG_REBASE_DONE] = {KNOWN_STATUSES, reply_status, rebase_reply},
    [RS_MSG_REPLACE] = {OK_ONLY, request_status, replace_request},
    [RS_MSG_REPLACE_DONE] = {KNOWN_STATUSES, reply_status, ringless_reply},
    [RS_MSG_SWITCH] = {OK_ONLY, request_status, switch_request},
    [RS_MSG_SWITCH_DONE] = {KNOWN_STATUSES, reply_status, ringless_reply},
    [RS_MSG_WAIT] = {OK_ONLY, request_status, wait_request},
    [RS_MSG_WAIT_DONE] = {OK_ONLY, reply_status, wait_reply},
    [RS_MSG_WINDOW] = {OK_ONLY, request_status, window_request},
    [RS_MSG_WINDOW_DONE] = {OK_ONLY | STATUS(RS_MSG_BAD_REQUEST), reply_status,
			    window_reply},
};

/* What is malformed in a message of a type with a row (a request, a
 * reply, a keepalive), or NULL. */
static const char *rule_check(const struct msg_rule *r,
			      const struct rs_msg *msg)
{
	if (r->statuses &&
	    (msg->status >= 32 || !(r->statuses & STATUS(msg->status))))
		return r->bad_status;
	return r->fields ? r->fields(msg) : 0;
}

static const struct msg_rule *rule_of(uint8_t type)
{
	if (type >= sizeof(msg_rules) / sizeof(msg_rules[0]))
		return 0;
	const struct msg_rule *r = &msg_rules[type];
	return r->statuses || r->fields ? r : 0;
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
	const struct msg_rule *r = rule_of(msg->type);
	return r ? rule_check(r, msg) : "unknown message type";
}

int rs_msg_decode(const void *buf, size_t len, struct rs_msg *msg,
		  struct rs_error *err)
{
	const char *why = msg_get(buf, len, msg);
	return why ? rs_error_set(err, RS_E_MALFORMED, 0, "%s", why) : 0;
}
