/* The sender decoding what the receiver grants on accept: the remote regions
 * it will RDMA-write into and the log geometry. Properties: the harness parses
 * the documented layout itself and checks the decoder accepts exactly the
 * grants that satisfy the documented rules (so a grant the sender trusts never
 * points outside the log, and a sound one is never refused), that an accepted
 * grant re-encodes to the same bytes and decodes
 * back to the same struct, that truncations are refused and CM zero padding is
 * accepted, and that a refusal is reported as error.h says (RS_E_VERSION
 * exactly for another protocol version). Then runs the sender's method rule
 * on the grant. */
#include "fuzz_check.h"
#include "fuzz_header.h"
#include "fuzz_method.h"
#include "proto/descriptor.h"
#include "proto/pool_layout.h"

#include <string.h>

#define CREDITS_MAX 1024 /* descriptor.c's RS_CREDITS_MAX */
#define METHODS_KNOWN                                                          \
	(RS_METHOD_BIT(RS_METHOD_APM) | RS_METHOD_BIT(RS_METHOD_GPSPM) |       \
	 RS_METHOD_BIT(RS_METHOD_STAGED) | RS_METHOD_BIT(RS_METHOD_FLUSH))
#define USAGE_KNOWN (RS_MR_USAGE_WRITE_DST | RS_MR_USAGE_READ_SRC)

static const uint8_t *mr_parse(const uint8_t *p, struct rs_mr_desc *d)
{
	d->addr = fuzz_le(p, 8);
	d->length = fuzz_le(p + 8, 8);
	d->rkey = (uint32_t)fuzz_le(p + 16, 4);
	d->usage = p[20];
	return p + RS_MR_DESC_SIZE;
}

static void parse(const uint8_t *p, struct rs_accept_info *a)
{
	memset(a, 0, sizeof(*a));
	a->version = p[4];
	a->peer_flags = p[6];
	a->methods = p[7];
	a->credits = (uint16_t)fuzz_le(p + 8, 2);
	p = mr_parse(p + 12, &a->data);
	p = mr_parse(p, &a->write_offset);
	p = mr_parse(p, &a->staging);
	p = mr_parse(p, &a->data_read);
	p = mr_parse(p, &a->staging_read);
	a->staging_slot_size = (uint32_t)fuzz_le(p, 4);
	a->start_offset = fuzz_le(p + 4, 8);
	a->end_offset = fuzz_le(p + 12, 8);
	a->write_offset_value = fuzz_le(p + 20, 8);
	memcpy(a->pool_uuid, p + 28, 16);
	memcpy(a->token.bytes, p + 44, RS_SESSION_TOKEN_SIZE);
	a->peer_timeout_ms = (uint32_t)fuzz_le(p + 60, 4);
	a->log_base = fuzz_le(p + 64, 8);
}

static bool mr_sound(const struct rs_mr_desc *d)
{
	return !(d->usage & ~USAGE_KNOWN) &&
	       (unsigned __int128)d->addr + d->length <= UINT64_MAX;
}

/* The rules of descriptor.h and pool_layout.h, written out independently. */
static bool grant_sound(const struct rs_accept_info *a)
{
	uint64_t start = a->start_offset, end = a->end_offset,
		 write = a->write_offset_value;
	bool apm = a->methods & RS_METHOD_BIT(RS_METHOD_APM);
	bool gpspm = a->methods & RS_METHOD_BIT(RS_METHOD_GPSPM);
	bool staged = a->methods & RS_METHOD_BIT(RS_METHOD_STAGED);
	bool flush = a->methods & RS_METHOD_BIT(RS_METHOD_FLUSH);

	if (!mr_sound(&a->data) || !mr_sound(&a->write_offset) ||
	    !mr_sound(&a->staging) || !mr_sound(&a->data_read) ||
	    !mr_sound(&a->staging_read))
		return false;
	if (a->peer_flags & ~(RS_PEER_DIRECT_WRITE_TO_PMEM | RS_PEER_ARCHIVE |
			      RS_PEER_READ_ONLY | RS_PEER_WINDOWS))
		return false;
	/* A window grant: a writer's, with gpspm, no apm or flush, and no
	 * key to the data range (the keys come in replies). */
	if ((a->peer_flags & RS_PEER_WINDOWS) &&
	    ((a->peer_flags & RS_PEER_READ_ONLY) || a->data.rkey || apm ||
	     flush || !gpspm))
		return false;
	/* A reader's grant: nothing to write; a writer's: some method. */
	if (a->peer_flags & RS_PEER_READ_ONLY) {
		if (a->methods || a->data.length || a->write_offset.length ||
		    a->staging.length)
			return false;
	} else if (a->methods == 0 || (a->methods & ~METHODS_KNOWN)) {
		return false;
	}
	if (a->credits < 1 || a->credits > CREDITS_MAX)
		return false;
	if (a->peer_timeout_ms < 100) /* the keepalive is a fraction of it */
		return false;
	/* The log lies after the pool header, 8-byte aligned, non-empty, and
	 * the committed end lies inside it. */
	if (start < RS_LOG_HDR_END || start % 8 || end % 8 || end <= start ||
	    write < start || write > end)
		return false;
	/* Log positions of the pool's bytes fit in 64 bits. */
	if (a->log_base > UINT64_MAX - (end - start))
		return false;
	/* Direct methods write into the data region: it is the log, exactly. */
	if ((apm || gpspm || flush) &&
	    (a->data.length != end - start ||
	     !(a->data.usage & RS_MR_USAGE_WRITE_DST)))
		return false;
	/* The two whose senders store the write offset get its word. */
	if ((apm || flush) && a->write_offset.length != 8)
		return false;
	if (apm && !(a->peer_flags & RS_PEER_DIRECT_WRITE_TO_PMEM))
		return false;
	/* A reader's readable region, when granted, is a prefix of the log. */
	if (a->data_read.length != 0 &&
	    (a->data_read.length > end - start ||
	     !(a->data_read.usage & RS_MR_USAGE_READ_SRC)))
		return false;
	/* The readable ring has a slot per credit. */
	if (a->staging_read.length != 0 &&
	    (a->staging_read.length !=
		 (uint64_t)a->staging_slot_size * a->credits ||
	     a->staging_slot_size == 0 ||
	     !(a->staging_read.usage & RS_MR_USAGE_READ_SRC)))
		return false;
	if (staged) {
		uint64_t ring = a->staging.length, slot = a->staging_slot_size;
		if (slot == 0 || ring % slot || ring < slot ||
		    ring / slot < a->credits ||
		    !(a->staging.usage & RS_MR_USAGE_WRITE_DST))
			return false;
	}
	return true;
}

static bool mr_equal(const struct rs_mr_desc *a, const struct rs_mr_desc *b)
{
	return a->addr == b->addr && a->length == b->length &&
	       a->rkey == b->rkey && a->usage == b->usage;
}

static bool info_equal(const struct rs_accept_info *a,
		       const struct rs_accept_info *b)
{
	return a->version == b->version && a->peer_flags == b->peer_flags &&
	       a->methods == b->methods && a->credits == b->credits &&
	       mr_equal(&a->data, &b->data) &&
	       mr_equal(&a->write_offset, &b->write_offset) &&
	       mr_equal(&a->staging, &b->staging) &&
	       mr_equal(&a->data_read, &b->data_read) &&
	       mr_equal(&a->staging_read, &b->staging_read) &&
	       a->staging_slot_size == b->staging_slot_size &&
	       a->start_offset == b->start_offset &&
	       a->end_offset == b->end_offset &&
	       a->write_offset_value == b->write_offset_value &&
	       memcmp(a->pool_uuid, b->pool_uuid, sizeof(a->pool_uuid)) == 0 &&
	       memcmp(&a->token, &b->token, sizeof(a->token)) == 0 &&
	       a->peer_timeout_ms == b->peer_timeout_ms &&
	       a->log_base == b->log_base;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rs_accept_info info, scratch;
	struct rs_error err;
	fuzz_err_init(&err);
	int rc = rs_accept_info_decode(data, size, &info, &err);
	/* Without an error record: the same answer. */
	FUZZ_CHECK(rs_accept_info_decode(data, size, &scratch, NULL) == rc);

	if (!fuzz_header_ok(data, size, RS_ACCEPT_INFO_SIZE,
			    RS_ACCEPT_INFO_SIZE)) {
		FUZZ_CHECK(rc == fuzz_header_errc(data, size));
		FUZZ_CHECK(fuzz_err_ok(rc, &err));
		return 0;
	}
	struct rs_accept_info model;
	parse(data, &model);
	bool reserved_zero = data[10] == 0 && data[11] == 0;
	FUZZ_CHECK((grant_sound(&model) && reserved_zero) == (rc == 0));
	if (rc) {
		FUZZ_CHECK(rc == RS_E_MALFORMED && fuzz_err_ok(rc, &err));
		return 0;
	}
	FUZZ_CHECK(info_equal(&info, &model));
	FUZZ_CHECK(grant_sound(&info));

	/* Round trip: the same bytes. */
	uint8_t *enc = malloc(RS_ACCEPT_INFO_SIZE);
	FUZZ_CHECK(enc);
	FUZZ_CHECK(rs_accept_info_encode(&info, enc, RS_ACCEPT_INFO_SIZE) ==
		   RS_ACCEPT_INFO_SIZE);
	FUZZ_CHECK(memcmp(enc, data, RS_ACCEPT_INFO_SIZE) == 0);
	struct rs_accept_info again;
	for (size_t n = 0; n < RS_ACCEPT_INFO_SIZE; n++)
		FUZZ_CHECK(rs_accept_info_decode(enc, n, &again, NULL) ==
			   RS_E_MALFORMED);
	uint8_t padded[RS_ACCEPT_PRIVATE_MAX] = {0};
	memcpy(padded, enc, RS_ACCEPT_INFO_SIZE);
	memset(&again, 0xa5, sizeof(again));
	FUZZ_CHECK(
	    rs_accept_info_decode(padded, sizeof(padded), &again, &err) == 0);
	FUZZ_CHECK(info_equal(&again, &info));
	free(enc);

	uint8_t *small = malloc(RS_ACCEPT_INFO_SIZE - 1);
	FUZZ_CHECK(small);
	FUZZ_CHECK(
	    rs_accept_info_encode(&info, small, RS_ACCEPT_INFO_SIZE - 1) == 0);
	free(small);

	/* The sender's negotiation: any method it may ask for. */
	for (unsigned m = 0; m < RS_METHOD_COUNT; m++)
		fuzz_method_choose(info.methods, (enum rs_method)m);
	return 0;
}
