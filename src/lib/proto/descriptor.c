#include "proto/descriptor.h"

#include "proto/fields.h"
#include "proto/pool_layout.h"
#include "proto/wire.h"

#include "error.h"

#include <string.h>

_Static_assert(RS_ACCEPT_INFO_SIZE <= RS_ACCEPT_PRIVATE_MAX,
	       "accept info must fit in rdma_cm private data");
_Static_assert(RS_CHALLENGE_SIZE <= RS_ACCEPT_PRIVATE_MAX,
	       "challenge must fit in rdma_cm private data");

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
		       "(max-senders, or its open-file limit)";
	case RS_REJECT_STOPPING:
		return "the receiver is stopping";
	case RS_REJECT_STARTING:
		return "the receiver has not opened that log yet";
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

/* 189 bytes in every version so far. */
static uint8_t accept_size(uint8_t version)
{
	(void)version;
	return RS_ACCEPT_INFO_SIZE;
}

/* 40 bytes in every version so far. */
static uint8_t challenge_size(uint8_t version)
{
	(void)version;
	return RS_CHALLENGE_SIZE;
}

size_t rs_accept_info_encode(const struct rs_accept_info *info, void *buf,
			     size_t len)
{
	struct rs_wire w = rs_wire_writer(buf, len);
	rs_fields_header_put(&w, info->version, RS_ACCEPT_INFO_SIZE);
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
		return rs_fields_malformed(err,
					   "unknown peer configuration flags");
	if (info->peer_flags & RS_PEER_READ_ONLY) {
		if (info->methods || info->data.length ||
		    info->write_offset.length || info->staging.length)
			return rs_fields_malformed(
			    err, "a read-only grant to write");
	} else if (info->methods == 0 || (info->methods & ~RS_METHODS_KNOWN)) {
		return rs_fields_malformed(
		    err, "no known persistence method allowed");
	}
	if ((info->peer_flags & RS_PEER_WINDOWS) &&
	    ((info->peer_flags & RS_PEER_READ_ONLY) || info->data.rkey ||
	     (info->methods & RS_METHOD_SENDER_COMMITS) ||
	     !(info->methods & RS_METHOD_BIT(RS_METHOD_GPSPM))))
		return rs_fields_malformed(
		    err, "a window grant with a key or without "
			 "gpspm");
	if (info->credits == 0 || info->credits > RS_CREDITS_MAX)
		return rs_fields_malformed(err, "credits out of range");
	if (info->peer_timeout_ms < RS_PEER_TIMEOUT_MIN_MS)
		return rs_fields_malformed(err, "peer timeout too short");
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
		return rs_fields_malformed(
		    err, "data region does not match the log");
	if ((info->methods & RS_METHOD_SENDER_COMMITS) &&
	    info->write_offset.length != 8)
		return rs_fields_malformed(
		    err, "write-offset region is not 8 bytes");
	if ((info->methods & RS_METHOD_BIT(RS_METHOD_APM)) &&
	    !(info->peer_flags & RS_PEER_DIRECT_WRITE_TO_PMEM))
		return rs_fields_malformed(
		    err, "APM offered without direct write to PMem");
	/* A reader's is the committed prefix when it was granted. */
	if (info->data_read.length != 0 &&
	    (info->data_read.length > data_len ||
	     !(info->data_read.usage & RS_MR_USAGE_READ_SRC)))
		return rs_fields_malformed(
		    err, "readable data region does not match the log");
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
		return rs_fields_malformed(
		    err, "readable staging region does not match the ring");
	if (!(info->methods & RS_METHOD_BIT(RS_METHOD_STAGED)))
		return 0;
	uint64_t ring = info->staging.length;
	uint32_t slot = info->staging_slot_size;
	if (slot == 0 || ring < slot || ring % slot != 0)
		return rs_fields_malformed(
		    err, "staging ring geometry is inconsistent");
	if (ring / slot < info->credits)
		return rs_fields_malformed(
		    err, "staging ring has fewer slots than credits");
	if (!(info->staging.usage & RS_MR_USAGE_WRITE_DST))
		return rs_fields_malformed(err,
					   "staging region is not writable");
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
		return rs_fields_malformed(err, "log position out of range");
	rc = accept_log_regions_check(info, data_len, err);
	return rc ? rc : accept_rings_check(info, err);
}

int rs_accept_info_decode(const void *buf, size_t len,
			  struct rs_accept_info *info, struct rs_error *err)
{
	struct rs_wire w = rs_wire_reader(buf, len);
	int rc = rs_fields_header_get(&w, accept_size, &info->version, err);
	if (rc)
		return rc;
	info->peer_flags = rs_wire_get_u8(&w);
	info->methods = rs_wire_get_u8(&w);
	info->credits = rs_wire_get_u16(&w);
	if (rs_wire_get_u16(&w) != 0 && !w.failed)
		return rs_fields_malformed(err,
					   "reserved accept field is not zero");
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
		return rs_fields_malformed(err, mr_why);
	info->staging_slot_size = rs_wire_get_u32(&w);
	info->start_offset = rs_wire_get_u64(&w);
	info->end_offset = rs_wire_get_u64(&w);
	info->write_offset_value = rs_wire_get_u64(&w);
	rs_wire_get_bytes(&w, info->pool_uuid, sizeof(info->pool_uuid));
	rs_wire_get_bytes(&w, info->token.bytes, sizeof(info->token.bytes));
	info->peer_timeout_ms = rs_wire_get_u32(&w);
	info->log_base = rs_wire_get_u64(&w);
	if (w.failed)
		return rs_fields_malformed(err, "private data truncated");
	return accept_info_check(info, err);
}

size_t rs_challenge_encode(const struct rs_challenge *c, void *buf, size_t len)
{
	struct rs_wire w = rs_wire_writer(buf, len);
	rs_fields_header_put(&w, c->version, RS_CHALLENGE_SIZE);
	rs_wire_put_u16(&w, 0); /* reserved */
	rs_wire_put_bytes(&w, c->nonce, sizeof(c->nonce));
	return w.failed ? 0 : w.pos;
}

int rs_challenge_decode(const void *buf, size_t len, struct rs_challenge *c,
			struct rs_error *err)
{
	struct rs_wire w = rs_wire_reader(buf, len);
	int rc = rs_fields_header_get(&w, challenge_size, &c->version, err);
	if (rc)
		return rc;
	if (rs_wire_get_u16(&w) != 0)
		return rs_fields_malformed(
		    err, "reserved challenge field is not zero");
	rs_wire_get_bytes(&w, c->nonce, sizeof(c->nonce));
	return w.failed ? rs_fields_malformed(err, "private data truncated")
			: 0;
}
