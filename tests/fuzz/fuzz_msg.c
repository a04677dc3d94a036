/* Both ends decoding control messages (commit requests and their replies).
 * Properties: the decoder accepts exactly the messages the harness, parsing
 * the documented layout itself, finds well formed (magic, flags known and
 * only in a commit, a known type, requests without a status, non-empty and
 * non-wrapping, no ring offset outside a staged commit, replies with a known
 * status, a hash only in a hash or wait reply, a window key only in a
 * commit and the replies that hand keys out, a window's end (where a hash
 * would be) only with a key in a reply, the rotation, replacement,
 * wait and window messages as rpma-ship(7) lays them out), an accepted message
 * re-encodes to the same 48 bytes and decodes back the same, and anything
 * shorter is refused; every refusal is RS_E_MALFORMED with its one line of
 * text. */
#include "fuzz_check.h"
#include "proto/descriptor.h"
#include "proto/message.h"

#include <string.h>

static bool msg_equal(const struct rs_msg *a, const struct rs_msg *b)
{
	if (a->type == RS_MSG_AUTH || b->type == RS_MSG_AUTH)
		return a->type == b->type && a->status == b->status &&
		       a->flags == b->flags && a->seq == b->seq &&
		       memcmp(a->mac, b->mac, sizeof(a->mac)) == 0;
	return a->type == b->type && a->status == b->status &&
	       a->flags == b->flags && a->seq == b->seq &&
	       a->offset == b->offset && a->length == b->length &&
	       a->ring_offset == b->ring_offset && a->hash == b->hash &&
	       a->key == b->key && a->key_end == b->key_end;
}

/* The messages a window key may ride in (rpma-ship(7)). */
static bool key_may_ride(uint8_t type)
{
	return type == RS_MSG_COMMIT || type == RS_MSG_COMMIT_DONE ||
	       type == RS_MSG_KEEPALIVE || type == RS_MSG_KEEPALIVE_DONE ||
	       type == RS_MSG_WINDOW_DONE || type == RS_MSG_REBASE_DONE ||
	       type == RS_MSG_REPLACE_DONE || type == RS_MSG_SWITCH_DONE;
}

static bool well_formed(const uint8_t *p)
{
	uint8_t type = p[4], status = p[5];
	uint64_t offset = fuzz_le(p + 16, 8), length = fuzz_le(p + 24, 8),
		 ring_offset = fuzz_le(p + 32, 8), last = fuzz_le(p + 40, 8);
	uint32_t key = (uint32_t)fuzz_le(p + 12, 4);
	/* The last word: a window's end where a key may ride, else a hash */
	bool keyed = key_may_ride(type);
	uint64_t hash = keyed ? 0 : last, key_end = keyed ? last : 0;
	if (key_end != 0 &&
	    (key == 0 || type == RS_MSG_COMMIT || type == RS_MSG_KEEPALIVE))
		return false;
	uint64_t flags = fuzz_le(p + 6, 2);
	if (fuzz_le(p, 4) != RS_PROTO_MAGIC || (flags & ~RS_MSG_FLAGS_KNOWN) ||
	    (flags && type != RS_MSG_COMMIT) ||
	    (key != 0 && !key_may_ride(type)))
		return false;
	if (type == RS_MSG_AUTH) /* 32 bytes of MAC, any value */
		return status == RS_MSG_OK;
	if (type != RS_MSG_HASH_DONE && type != RS_MSG_WAIT_DONE && hash != 0)
		return false;
	switch (type) {
	case RS_MSG_KEEPALIVE:
	case RS_MSG_KEEPALIVE_DONE: /* no range, no status */
		return status == RS_MSG_OK && offset == 0 && length == 0 &&
		       ring_offset == 0;
	case RS_MSG_COMMIT:
	case RS_MSG_STAGED_COMMIT:
	case RS_MSG_HASH:
	case RS_MSG_READ_STAGE:
		return status == RS_MSG_OK && length != 0 &&
		       (unsigned __int128)offset + length <= UINT64_MAX &&
		       (type == RS_MSG_STAGED_COMMIT ||
			type == RS_MSG_READ_STAGE || ring_offset == 0);
	case RS_MSG_COMMIT_DONE:
		return status <= RS_MSG_BAD_REQUEST;
	case RS_MSG_HASH_DONE:
	case RS_MSG_READ_STAGE_DONE: /* or the archive could not be read */
		return status <= RS_MSG_BAD_REQUEST ||
		       status == RS_MSG_ARCHIVE_FAILED;
	case RS_MSG_REBASE: /* the pool's end only */
		return status == RS_MSG_OK && length == 0 && ring_offset == 0;
	case RS_MSG_REBASE_DONE:
		return status <= RS_MSG_STATUS_LAST && length == 0 &&
		       ring_offset == 0;
	case RS_MSG_REPLACE: /* offset 0: a new one, 1: carry on */
		return status == RS_MSG_OK && offset <= 1 && ring_offset == 0;
	case RS_MSG_SWITCH: /* where the replacement ends */
		return status == RS_MSG_OK && length == 0 && ring_offset == 0;
	case RS_MSG_REPLACE_DONE:
	case RS_MSG_SWITCH_DONE:
		return status <= RS_MSG_STATUS_LAST && ring_offset == 0;
	case RS_MSG_WAIT: /* length 0: tell now, 1: when it grows */
		return status == RS_MSG_OK && length <= 1 && ring_offset == 0;
	case RS_MSG_WAIT_DONE: /* oldest held <= pool start <= end */
		return status == RS_MSG_OK && length <= offset &&
		       ring_offset <= length;
	case RS_MSG_WINDOW: /* the ask, with the room it needs */
		return status == RS_MSG_OK && offset == 0 && ring_offset == 0;
	case RS_MSG_WINDOW_DONE: /* a key over [offset, +length), or no */
		if (status != RS_MSG_OK && status != RS_MSG_BAD_REQUEST)
			return false;
		return ring_offset == 0 &&
		       (unsigned __int128)offset + length <= UINT64_MAX &&
		       (status != RS_MSG_OK || key != 0);
	default:
		return false;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_msg msg, scratch;
	struct rs_error err;
	fuzz_err_init(&err);
	int rc = rs_msg_decode(data, size, &msg, &err);
	/* Without an error record: the same answer. */
	FUZZ_CHECK(rs_msg_decode(data, size, &scratch, NULL) == rc);
	FUZZ_CHECK(rc == 0 || (rc == RS_E_MALFORMED && fuzz_err_ok(rc, &err)));
	if (size < RS_MSG_SIZE) {
		FUZZ_CHECK(rc != 0);
		return 0;
	}
	FUZZ_CHECK(well_formed(data) == (rc == 0));
	if (rc)
		return 0;
	struct rs_msg model = {
	    .type = data[4],
	    .status = data[5],
	    .flags = (uint16_t)fuzz_le(data + 6, 2),
	    .seq = (uint32_t)fuzz_le(data + 8, 4),
	    .key = (uint32_t)fuzz_le(data + 12, 4),
	    .offset = fuzz_le(data + 16, 8),
	    .length = fuzz_le(data + 24, 8),
	    .ring_offset = fuzz_le(data + 32, 8),
	};
	if (key_may_ride(model.type))
		model.key_end = fuzz_le(data + 40, 8);
	else
		model.hash = fuzz_le(data + 40, 8);
	if (model.type == RS_MSG_AUTH)
		memcpy(model.mac, data + 16, sizeof(model.mac));
	FUZZ_CHECK(msg_equal(&msg, &model));
	const char *status = rs_msg_status_str(msg.status);
	FUZZ_CHECK(status && *status);

	uint8_t *enc = malloc(RS_MSG_SIZE);
	FUZZ_CHECK(enc);
	FUZZ_CHECK(rs_msg_encode(&msg, enc, RS_MSG_SIZE) == RS_MSG_SIZE);
	FUZZ_CHECK(memcmp(enc, data, RS_MSG_SIZE) == 0);
	struct rs_msg again;
	for (size_t n = 0; n < RS_MSG_SIZE; n++)
		FUZZ_CHECK(rs_msg_decode(enc, n, &again, NULL) ==
			   RS_E_MALFORMED);
	memset(&again, 0xa5, sizeof(again));
	FUZZ_CHECK(rs_msg_decode(enc, RS_MSG_SIZE, &again, &err) == 0);
	FUZZ_CHECK(msg_equal(&again, &msg));
	free(enc);

	uint8_t *small = malloc(RS_MSG_SIZE - 1);
	FUZZ_CHECK(small);
	FUZZ_CHECK(rs_msg_encode(&msg, small, RS_MSG_SIZE - 1) == 0);
	free(small);
	return 0;
}
