/* rogue_sender: a hostile rpma-ship sender for tests/e2e/hostile.sh.
 *
 *   rogue_sender SCENARIO HOST[:PORT][/NAME] [TEXT]
 *
 * It connects with the library's own connection code and encoders, but sends
 * what a receiver must refuse: bad connect private data (log names too),
 * commits outside the log or the staging ring, malformed control messages,
 * RDMA writes outside the granted regions, writes into the log by a reader,
 * by any key against an append-only log, by a session that ended; and a
 * one-sided writer's (apm, flush) stored offset and kept keys
 * (rogue_offset.c), a made-up takeover token at max-senders. What the
 * scenarios share is rogue.c. Every wait has a
 * timeout of a few seconds. It prints one line saying what
 * happened and exits 0 when the receiver refused safely, 1 when the receiver
 * misbehaved (accepted, committed, let a write through, did not answer or did
 * not close), 2 when the scenario could not run. */
#include "rogue.h"
#include "rogue_offset.h"
#include "rogue_reach.h"
#include "rogue_seal.h"

#include "proto/method.h"
#include "rdma/mr.h"
#include "rdma/peer.h"

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- connect-time scenarios ---- */

static int connect_case(struct rogue *r, const char *what, const void *priv,
			uint8_t len, uint8_t want, bool strict)
{
	char err[512];
	struct connect_result res;
	int rc;
	if (attempt(r, priv, len, &res, err, sizeof(err))) {
		note("%s", err);
		rc = ROGUE_NORUN;
	} else if (res.timed_out) {
		note("no answer to a connect request with %s within %d ms",
		     what, CONNECT_TIMEOUT_MS);
		rc = ROGUE_UNSAFE;
	} else if (res.rc == 0) {
		note("ACCEPTED a connect request with %s", what);
		rc = ROGUE_UNSAFE;
	} else {
		/* RS_E_UNREACHABLE (refused without private data, or another
		 * event than accept or reject) counts as a reject without a
		 * reason we can decode. */
		struct rs_reject_info rej;
		struct rs_error why = res.error;
		if (res.rc != RS_E_REJECTED ||
		    rs_reject_decode(res.reply.bytes, res.reply.len, &rej,
				     &why)) {
			note("connect request with %s rejected without a "
			     "reason we can decode (%s)",
			     what, rs_error_str(&why));
			rc = strict ? ROGUE_UNSAFE : ROGUE_SAFE;
		} else if (rej.reason != want) {
			note("connect request with %s rejected with reason %u "
			     "(%s), expected %u (%s)",
			     what, rej.reason, rs_reject_reason_str(rej.reason),
			     want, rs_reject_reason_str(want));
			rc = strict ? ROGUE_UNSAFE : ROGUE_SAFE;
		} else if (want == RS_REJECT_VERSION &&
			   (rej.min_version != RS_PROTO_VERSION_MIN ||
			    rej.max_version != RS_PROTO_VERSION)) {
			note("connect request with %s refused for its version, "
			     "saying the receiver speaks %u to %u, not %u to "
			     "%u",
			     what, rej.min_version, rej.max_version,
			     RS_PROTO_VERSION_MIN, RS_PROTO_VERSION);
			rc = ROGUE_UNSAFE;
		} else {
			note("connect request with %s rejected: reason %u (%s)",
			     what, rej.reason,
			     rs_reject_reason_str(rej.reason));
			if (want == RS_REJECT_VERSION)
				note("the receiver speaks versions %u to %u",
				     rej.min_version, rej.max_version);
			rc = ROGUE_SAFE;
		}
	}
	rogue_close(r);
	return rc;
}

static size_t valid_request(uint8_t flags, uint8_t method, uint8_t *buf)
{
	struct rs_connect_req req = {
	    .flags = flags, .method = method, .methods = methods_of(flags)};
	return rs_connect_req_encode(&req, buf, RS_CONNECT_PRIVATE_MAX);
}

static int scenario_bad_magic(struct rogue *r, const char *arg)
{
	(void)arg;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	size_t len = valid_request(0, RS_METHOD_GPSPM, buf);
	memcpy(buf, "XXXX", 4);
	return connect_case(r, "a wrong magic", buf, (uint8_t)len,
			    RS_REJECT_BAD_REQUEST, false);
}

/* A request in a version older than every one the receiver speaks. */
static int scenario_bad_version(struct rogue *r, const char *arg)
{
	(void)arg;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	size_t len = valid_request(0, RS_METHOD_GPSPM, buf);
	buf[4] = RS_PROTO_VERSION_MIN - 1; /* the version byte */
	return connect_case(r, "version 8", buf, (uint8_t)len,
			    RS_REJECT_VERSION, true);
}

/* A sender of an unknown future protocol: refused at once, told which
 * versions the receiver speaks (a newer sender would ask again in one). */
static int scenario_future_version(struct rogue *r, const char *arg)
{
	(void)arg;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	size_t len = valid_request(0, RS_METHOD_GPSPM, buf);
	buf[4] = 200;
	return connect_case(r, "version 200", buf, (uint8_t)len,
			    RS_REJECT_VERSION, true);
}

static int scenario_short(struct rogue *r, const char *arg)
{
	(void)arg;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	valid_request(0, RS_METHOD_GPSPM, buf);
	return connect_case(r, "3 bytes of private data", buf, 3,
			    RS_REJECT_BAD_REQUEST, false);
}

static int scenario_unknown_flags(struct rogue *r, const char *arg)
{
	(void)arg;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	size_t len = valid_request(0x80, RS_METHOD_GPSPM, buf);
	return connect_case(r, "flags 0x80", buf, (uint8_t)len,
			    RS_REJECT_BAD_REQUEST, false);
}

static int scenario_unknown_method(struct rogue *r, const char *arg)
{
	(void)arg;
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	size_t len = valid_request(0, 9, buf);
	return connect_case(r, "method 9", buf, (uint8_t)len,
			    RS_REJECT_BAD_REQUEST, false);
}

/* The log name: 31 bytes at offset 25 of the request (rpma-ship(7)), the
 * name then zeros. The encoder copies whatever it is given, so the hostile
 * ones are written over a valid request. */
#define NAME_OFFSET 25
_Static_assert(NAME_OFFSET + RS_LOG_NAME_MAX == RS_CONNECT_REQ_SIZE,
	       "the name field ends the connect request");

static int bad_name_case(struct rogue *r, const char *what, const void *name,
			 size_t len)
{
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	size_t req_len = valid_request(0, RS_METHOD_GPSPM, buf);
	memset(buf + NAME_OFFSET, 0, RS_LOG_NAME_MAX);
	memcpy(buf + NAME_OFFSET, name, len);
	return connect_case(r, what, buf, (uint8_t)req_len,
			    RS_REJECT_BAD_REQUEST, false);
}

static int scenario_bad_name(struct rogue *r, const char *arg)
{
	(void)arg;
	int rc = bad_name_case(r, "a log name of '../pool'", "../pool", 7);
	rc = worse(rc, bad_name_case(r, "a log name with a space", "a b", 3));
	rc = worse(rc, bad_name_case(r, "bytes after the log name's NUL",
				     "app\0x", 5));
	return rc;
}

/* A writer's takeover with a token the receiver never issued, on a log no
 * writer holds, while the receiver serves as many senders as max-senders
 * allows: it takes no one's seat, so it counts like any request and is
 * refused (RS_REJECT_LIMIT). Where the takeover flag alone passed the
 * cap, any allowed peer could go past it. */
static int scenario_takeover_at_cap(struct rogue *r, const char *arg)
{
	(void)arg;
	struct rs_connect_req req = {.flags = RS_CONNECT_TAKEOVER,
				     .method = RS_METHOD_GPSPM,
				     .methods = methods_of(0)};
	memcpy(req.log_name, r->name, sizeof(req.log_name));
	for (size_t i = 0; i < sizeof(req.token.bytes); i++)
		req.token.bytes[i] = (uint8_t)(0xa5 ^ (i * 31));
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	size_t len = rs_connect_req_encode(&req, buf, sizeof(buf));
	return connect_case(r, "a made-up takeover token at max-senders", buf,
			    (uint8_t)len, RS_REJECT_LIMIT, true);
}

/* ---- commit requests the receiver must refuse ---- */

enum commit_case {
	CC_PAST_END,	  /* from the write offset to beyond the log's end */
	CC_AT_END,	  /* starting at the log's end */
	CC_HEADER,	  /* offset 0: the pool header */
	CC_OFFSET_WORD,	  /* the log header with the write-offset word */
	CC_GAP,		  /* 4096 bytes after the write offset */
	CC_BEHIND,	  /* the start of the log, already committed */
	CC_RING_TOO_LONG, /* longer than the whole staging ring */
	CC_RING_AT_END,	  /* ring offset at the ring's end */
	CC_RING_STRADDLE, /* crossing the ring's end */
	CC_RING_WRAP,	  /* ring offset near 2^64 */
};

struct commit_variant {
	const char *name;
	enum commit_case which;
	uint8_t method;
	uint8_t want;
};

/* Builds the request from what the receiver granted. Returns NULL, or why
 * this variant cannot be built against this log. */
static const char *build_commit(const struct rs_accept_info *in,
				enum commit_case which, struct rs_msg *m)
{
	uint64_t w = in->write_offset_value, end = in->end_offset;
	uint64_t ring = in->staging.length;
	memset(m, 0, sizeof(*m));
	m->type =
	    which >= CC_RING_TOO_LONG ? RS_MSG_STAGED_COMMIT : RS_MSG_COMMIT;
	m->offset = w;
	m->length = 4096;
	switch (which) {
	case CC_PAST_END:
		m->length = end - w + 4096;
		return 0;
	case CC_AT_END:
		m->offset = end;
		return 0;
	case CC_HEADER:
		m->offset = 0;
		return 0;
	case CC_OFFSET_WORD:
		m->offset = 4096;
		m->length = 24;
		return 0;
	case CC_GAP:
		m->offset = w + 4096;
		return m->offset + m->length <= end ? 0 : "log too full";
	case CC_BEHIND:
		m->offset = in->start_offset;
		m->length = 1;
		return w > in->start_offset ? 0 : "log empty";
	case CC_RING_TOO_LONG:
		m->length = ring + 4096;
		break;
	case CC_RING_AT_END:
		m->ring_offset = ring;
		break;
	case CC_RING_STRADDLE:
		m->ring_offset = ring - 2048;
		break;
	case CC_RING_WRAP:
		m->ring_offset = UINT64_MAX - 100;
		break;
	}
	if (ring == 0)
		return "no staging ring granted";
	/* Only the ring may be wrong, not the log range. */
	return w + m->length <= end ? 0 : "log too full";
}

/* Safe when the receiver refused req with v->want, left the write offset
 * alone and closed the connection. */
static int commit_verdict(const struct rogue *r, const struct commit_variant *v,
			  const struct rs_msg *req, const struct outcome *o)
{
	const struct rs_msg *rep = &o->reply;
	char what[128];
	snprintf(what, sizeof(what), "%s (offset %llu length %llu ring %llu)",
		 v->name, (unsigned long long)req->offset,
		 (unsigned long long)req->length,
		 (unsigned long long)req->ring_offset);
	if (o->replied && !o->reply_malformed && rep->status == RS_MSG_OK)
		note("%s: COMMITTED, write offset now %llu", what,
		     (unsigned long long)rep->offset);
	else if (!o->replied)
		note("%s: no reply within %d ms (%s)", what, REPLY_TIMEOUT_MS,
		     o->closed ? o->closed_how : "connection still open");
	else if (o->reply_malformed)
		note("%s: malformed reply (%s)", what,
		     rs_error_str(&o->reply_error));
	else if (rep->type != RS_MSG_COMMIT_DONE || rep->seq != req->seq)
		note("%s: unexpected reply type %u seq %u", what, rep->type,
		     rep->seq);
	else if (rep->status != v->want)
		note("%s: refused with status %s, expected %s", what,
		     status_name(rep->status), status_name(v->want));
	else if (rep->offset != r->info.write_offset_value)
		note("%s: refused, but the write offset moved from %llu to "
		     "%llu",
		     what, (unsigned long long)r->info.write_offset_value,
		     (unsigned long long)rep->offset);
	else if (!o->closed)
		note("%s: refused (%s) but the connection stayed open", what,
		     status_name(rep->status));
	else {
		note("%s: %s, %s", what, status_name(rep->status),
		     o->closed_how);
		return ROGUE_SAFE;
	}
	return ROGUE_UNSAFE;
}

/* Sends a commit the receiver must refuse with want, then close. */
static int refused_commit(struct rogue *r, const struct commit_variant *v)
{
	char err[512];
	if (session_open(r, v->method, err, sizeof(err))) {
		note("%s: could not run: %s", v->name, err);
		rogue_close(r);
		return ROGUE_NORUN;
	}
	struct rs_msg req;
	const char *skip = build_commit(&r->info, v->which, &req);
	if (req.type == RS_MSG_COMMIT)
		req.key = r->key; /* the key is right, the range is not */
	if (skip) {
		note("%s: skipped (%s)", v->name, skip);
		rogue_close(r);
		return ROGUE_SAFE;
	}
	if (send_msg(r, &req)) {
		note("%s: could not run: cannot post a send: %s", v->name,
		     POST_LOST);
		rogue_close(r);
		return ROGUE_NORUN;
	}
	struct outcome o;
	await(r, &o, REPLY_TIMEOUT_MS, 0);
	int rc = commit_verdict(r, v, &req, &o);
	rogue_close(r);
	return rc;
}

static int run_commits(struct rogue *r, const struct commit_variant *v,
		       size_t n)
{
	int rc = ROGUE_SAFE;
	bool ran = false;
	for (size_t i = 0; i < n; i++) {
		size_t before = strlen(report);
		rc = worse(rc, refused_commit(r, &v[i]));
		ran |= !strstr(report + before, "skipped");
	}
	if (!ran) {
		note("no variant could run against this log");
		rc = worse(rc, ROGUE_NORUN);
	}
	return rc;
}

static int scenario_out_of_range(struct rogue *r, const char *arg)
{
	(void)arg;
	static const struct commit_variant v[] = {
	    {"past the log end", CC_PAST_END, RS_METHOD_GPSPM,
	     RS_MSG_OUT_OF_RANGE},
	    {"at the log end", CC_AT_END, RS_METHOD_GPSPM, RS_MSG_OUT_OF_RANGE},
	    {"pool header", CC_HEADER, RS_METHOD_GPSPM, RS_MSG_OUT_OF_RANGE},
	    {"write-offset word", CC_OFFSET_WORD, RS_METHOD_GPSPM,
	     RS_MSG_OUT_OF_RANGE},
	};
	return run_commits(r, v, sizeof(v) / sizeof(v[0]));
}

static int scenario_not_contiguous(struct rogue *r, const char *arg)
{
	(void)arg;
	static const struct commit_variant v[] = {
	    {"gap after the write offset", CC_GAP, RS_METHOD_GPSPM,
	     RS_MSG_NOT_CONTIGUOUS},
	    {"over committed data", CC_BEHIND, RS_METHOD_GPSPM,
	     RS_MSG_NOT_CONTIGUOUS},
	};
	return run_commits(r, v, sizeof(v) / sizeof(v[0]));
}

static int scenario_staged_oversized(struct rogue *r, const char *arg)
{
	(void)arg;
	static const struct commit_variant v[] = {
	    {"longer than the ring", CC_RING_TOO_LONG, RS_METHOD_STAGED,
	     RS_MSG_OUT_OF_RANGE},
	    {"ring offset at the ring end", CC_RING_AT_END, RS_METHOD_STAGED,
	     RS_MSG_OUT_OF_RANGE},
	    {"across the ring end", CC_RING_STRADDLE, RS_METHOD_STAGED,
	     RS_MSG_OUT_OF_RANGE},
	    {"ring offset near 2^64", CC_RING_WRAP, RS_METHOD_STAGED,
	     RS_MSG_OUT_OF_RANGE},
	};
	return run_commits(r, v, sizeof(v) / sizeof(v[0]));
}

/* ---- malformed control messages ---- */

enum bad_msg {
	BM_GARBAGE,	 /* 48 bytes without the magic */
	BM_TRUNCATED,	 /* 20 bytes of a valid commit */
	BM_UNKNOWN_TYPE, /* type 99 */
	BM_REPLY_TYPE,	 /* a COMMIT_DONE sent as a request */
	BM_OVERSIZED,	 /* 64 bytes: more than the receive buffer */
};

/* Puts the bad message b into the send area; returns its length. */
static uint32_t build_bad_msg(struct rogue *r, enum bad_msg b)
{
	uint8_t *out = r->buf + OFF_SEND;
	struct rs_msg m = {.type = RS_MSG_COMMIT,
			   .seq = ++r->seq,
			   .offset = r->info.write_offset_value,
			   .length = 16};
	uint32_t len = RS_MSG_SIZE;
	rs_msg_encode(&m, out, RS_MSG_SIZE);
	switch (b) {
	case BM_GARBAGE:
		memset(out, 0xa5, RS_MSG_SIZE);
		break;
	case BM_TRUNCATED:
		len = 20;
		break;
	case BM_UNKNOWN_TYPE:
		out[4] = 99;
		break;
	case BM_REPLY_TYPE:
		m.type = RS_MSG_COMMIT_DONE;
		rs_msg_encode(&m, out, RS_MSG_SIZE);
		break;
	case BM_OVERSIZED:
		memset(out + RS_MSG_SIZE, 0x5a, 16);
		len = RS_MSG_SIZE + 16;
		break;
	}
	return len;
}

/* Safe when nothing was accepted and the receiver closed the connection. */
static int malformed_verdict(const char *name, const struct outcome *o)
{
	char reply[96] = "no reply";
	if (o->replied && o->reply_malformed)
		snprintf(reply, sizeof(reply), "malformed reply (%s)",
			 rs_error_str(&o->reply_error));
	else if (o->replied)
		snprintf(reply, sizeof(reply), "reply type %u status %s",
			 o->reply.type, status_name(o->reply.status));
	if (o->replied && !o->reply_malformed && o->reply.status == RS_MSG_OK) {
		note("%s: ACCEPTED (%s, write offset %llu)", name, reply,
		     (unsigned long long)o->reply.offset);
		return ROGUE_UNSAFE;
	}
	if (!o->closed) {
		note("%s: %s and the connection stayed open for %d ms", name,
		     reply, REPLY_TIMEOUT_MS);
		return ROGUE_UNSAFE;
	}
	note("%s: %s, %s", name, reply, o->closed_how);
	return ROGUE_SAFE;
}

static int malformed_case(struct rogue *r, const char *name, enum bad_msg b)
{
	char err[512];
	if (session_open(r, RS_METHOD_AUTO, err, sizeof(err)))
		return cannot_run(r, name, err);
	if (send_raw(r, build_bad_msg(r, b))) {
		note("%s: could not run: cannot post a send: %s", name,
		     POST_LOST);
		rogue_close(r);
		return ROGUE_NORUN;
	}
	struct outcome o;
	await(r, &o, REPLY_TIMEOUT_MS, 0);
	int rc = malformed_verdict(name, &o);
	rogue_close(r);
	return rc;
}

static int scenario_malformed(struct rogue *r, const char *arg)
{
	(void)arg;
	int rc = malformed_case(r, "garbage", BM_GARBAGE);
	rc = worse(rc, malformed_case(r, "truncated", BM_TRUNCATED));
	rc = worse(rc, malformed_case(r, "unknown type", BM_UNKNOWN_TYPE));
	rc = worse(rc, malformed_case(r, "reply as request", BM_REPLY_TYPE));
	rc = worse(rc, malformed_case(r, "oversized", BM_OVERSIZED));
	return rc;
}

/* ---- RDMA writes outside the granted regions ---- */

enum bad_write {
	BW_HEADER,	  /* the 4096 bytes before the data region */
	BW_STRADDLE,	  /* 16 bytes across the data region's start */
	BW_PAST_END,	  /* just after the data region */
	BW_RING_KEY,	  /* the data region with the ring's key */
	BW_RING_PAST_END, /* just after the staging ring */
};

/* Where the bad write b goes, built by hand from what the receiver granted.
 * Returns false when a region it needs was not granted. */
static bool bad_write_target(const struct rs_accept_info *in, enum bad_write b,
			     struct rs_mr_desc *dst)
{
	const struct rs_mr_desc *data = &in->data, *ring = &in->staging;
	*dst = (struct rs_mr_desc){
	    .addr = data->addr, .length = 4096, .rkey = data->rkey};
	switch (b) {
	case BW_HEADER:
		dst->addr = data->addr - 4096;
		break;
	case BW_STRADDLE:
		dst->addr = data->addr - 8;
		dst->length = 16;
		break;
	case BW_PAST_END:
		dst->addr = data->addr + data->length;
		break;
	case BW_RING_KEY:
		dst->rkey = ring->rkey;
		break;
	case BW_RING_PAST_END:
		dst->addr = ring->addr + ring->length;
		dst->rkey = ring->rkey;
		break;
	}
	return data->length != 0 &&
	       !((b == BW_RING_KEY || b == BW_RING_PAST_END) &&
		 ring->length == 0);
}

/* Where the log's data range is (its address and length, no key), as a
 * reader is shown it: a staged writer is shown no data range. */
static int log_range(struct rogue *r, struct rs_mr_desc *range)
{
	char err[512];
	int rc = session_open_as(r, RS_CONNECT_VERIFY, RS_METHOD_AUTO, err,
				 sizeof(err));
	*range = (struct rs_mr_desc){.addr = r->info.data_read.addr,
				     .length = r->info.end_offset -
					       r->info.start_offset};
	rogue_close(r);
	return rc || !range->addr ? -1 : 0;
}

/* A write of b's kind by a writer of method (gpspm for the log's regions,
 * staged for the ring: only a staged writer is granted one; it aims the
 * ring's key at the log a reader was shown). */
static int write_case(struct rogue *r, const char *name, uint8_t method,
		      enum bad_write b)
{
	char err[512];
	struct rs_mr_desc log = {0};
	if (method == RS_METHOD_STAGED && log_range(r, &log))
		return cannot_run(r, name,
				  "the log's range not shown to a "
				  "reader");
	if (session_open(r, method, err, sizeof(err)))
		return cannot_run(r, name, err);
	if (method == RS_METHOD_STAGED)
		r->info.data = log;
	struct rs_mr_desc dst;
	if (!bad_write_target(&r->info, b, &dst))
		return cannot_run(r, name, "region not granted");
	return write_judged(r, name, &dst);
}

/* The staging ring is granted to a staged writer only: a gpspm writer is
 * shown no key to it. */
static int gpspm_shown_no_ring(struct rogue *r)
{
	char err[512];
	if (session_open(r, RS_METHOD_GPSPM, err, sizeof(err)))
		return cannot_run(r, "a gpspm writer's grant", err);
	bool shown = r->info.staging.length || r->info.staging.rkey;
	rogue_close(r);
	if (!shown)
		return ROGUE_SAFE;
	note("a gpspm writer was shown the staging ring");
	return ROGUE_UNSAFE;
}

static int scenario_write_outside(struct rogue *r, const char *arg)
{
	(void)arg;
	const uint8_t gpspm = RS_METHOD_GPSPM, staged = RS_METHOD_STAGED;
	int rc = write_case(r, "pool header", gpspm, BW_HEADER);
	rc = worse(rc,
		   write_case(r, "across the data start", gpspm, BW_STRADDLE));
	rc = worse(rc, write_case(r, "past the data end", gpspm, BW_PAST_END));
	rc = worse(
	    rc, write_case(r, "data with the ring key", staged, BW_RING_KEY));
	rc = worse(
	    rc, write_case(r, "past the ring end", staged, BW_RING_PAST_END));
	return worse(rc, gpspm_shown_no_ring(r));
}

/* ---- no write into the log: readers, append-only logs, ended sessions ---- */

/* What a reading session was shown that it could write with, or NULL. */
static const char *reader_write_grant(const struct rs_accept_info *in)
{
	if (!(in->peer_flags & RS_PEER_READ_ONLY))
		return "a grant not marked read only";
	if (in->methods)
		return "persistence methods";
	if (in->data.length || in->write_offset.length || in->staging.length)
		return "a region to write";
	return 0;
}

/* Opens a reading session and keeps what it was shown: where the log's
 * committed bytes are and a key to read them. Says what went wrong. */
static int reader_learn(struct rogue *r, struct rs_mr_desc *log)
{
	char err[512];
	if (session_open_as(r, RS_CONNECT_VERIFY, RS_METHOD_AUTO, err,
			    sizeof(err))) {
		note("%s", err);
		return ROGUE_NORUN;
	}
	const char *wrong = reader_write_grant(&r->info);
	*log = r->info.data_read;
	rogue_close(r);
	if (wrong) {
		note("a reader was shown %s", wrong);
		return ROGUE_UNSAFE;
	}
	if (!log->length) {
		note("the log is not readable in place");
		return ROGUE_NORUN;
	}
	return 0;
}

/* On a new session opened with flags, RDMA-writes 16 bytes over the log's
 * first byte (at log->addr) with key; safe when the receiver's NIC refuses
 * it with a remote access error. */
static int overwrite_case(struct rogue *r, const char *name, uint8_t flags,
			  const struct rs_mr_desc *log, bool ring_key)
{
	char err[512];
	if (session_open_as(r, flags, RS_METHOD_AUTO, err, sizeof(err)))
		return cannot_run(r, name, err);
	struct rs_mr_desc dst = {.addr = log->addr,
				 .length = 16,
				 .rkey = ring_key ? r->info.staging.rkey
						  : log->rkey};
	if (ring_key && !r->info.staging.length)
		return cannot_run(r, name, "no staging ring granted");
	return write_judged(r, name, &dst);
}

/* A reader writes with each key it is shown (it is shown no other): over
 * the committed bytes with the one it reads them with, over its ring with
 * the ring's. */
static int scenario_reader_writes(struct rogue *r, const char *arg)
{
	(void)arg;
	char err[512];
	struct rs_mr_desc log;
	int rc = reader_learn(r, &log);
	if (rc)
		return rc;
	note("a reader is shown nothing to write");
	rc = overwrite_case(r, "a reader over the log's first byte",
			    RS_CONNECT_VERIFY, &log, false);
	if (session_open_as(r, RS_CONNECT_VERIFY, RS_METHOD_AUTO, err,
			    sizeof(err)))
		return worse(rc, cannot_run(r, "a reader's ring", err));
	struct rs_mr_desc ring = r->info.staging_read;
	if (!ring.length)
		return worse(rc,
			     cannot_run(r, "a reader's ring", "none shown"));
	ring.length = 16;
	return worse(rc, write_judged(r, "a reader over its own ring", &ring));
}

/* RDMA-reads 16 bytes of src at offset into the payload area (its
 * completion counted as the case's one RDMA operation, WR_WRITE). Its
 * outcome in o. */
static int read_awaited(struct rogue *r, const struct rs_mr_desc *src,
			uint64_t offset, struct outcome *o)
{
	if (rs_conn_read(r->conn, r->mr, OFF_PAYLOAD, src, offset, 16, WR_WRITE,
			 RS_POST_SIGNALED))
		return -1;
	await(r, o, REPLY_TIMEOUT_MS, WR_WRITE);
	return 0;
}

/* A reader reads in place what was committed when it was granted, no
 * further: shown exactly the committed bytes, its last 16 read back, the
 * 16 after them (nothing committed there) get a remote access error. */
static int scenario_reader_reads_ahead(struct rogue *r, const char *arg)
{
	(void)arg;
	char err[512];
	if (session_open_as(r, RS_CONNECT_VERIFY, RS_METHOD_AUTO, err,
			    sizeof(err)))
		return cannot_run(r, "a reader", err);
	struct rs_mr_desc log = r->info.data_read;
	uint64_t committed = r->info.write_offset_value - r->info.start_offset;
	if (log.length != committed || committed < 16) {
		note("a reader may read %llu bytes in place; %llu are "
		     "committed (16 at least needed)",
		     (unsigned long long)log.length,
		     (unsigned long long)committed);
		rogue_close(r);
		return log.length > committed ? ROGUE_UNSAFE : ROGUE_NORUN;
	}
	struct outcome o;
	if (read_awaited(r, &log, log.length - 16, &o) || !o.write_done ||
	    !o.write.ok)
		return cannot_run(r, "the last committed bytes", "not read");
	note("a reader read its last 16 committed bytes");
	struct rs_mr_desc ahead = {
	    .addr = log.addr + log.length, .length = 16, .rkey = log.rkey};
	if (read_awaited(r, &ahead, 0, &o))
		return cannot_run(r, "past the committed bytes", POST_LOST);
	int rc = access_verdict("a reader 16 bytes past the committed ones",
				"READ", &o);
	rogue_close(r);
	return rc;
}

/* A reader asks to truncate, to replace, to take over: malformed. */
static int scenario_reader_truncates(struct rogue *r, const char *arg)
{
	(void)arg;
	static const struct {
		const char *what;
		uint8_t flags;
	} asks[] = {
	    {"verify and truncate", RS_CONNECT_VERIFY | RS_CONNECT_TRUNCATE},
	    {"verify and replace", RS_CONNECT_VERIFY | RS_CONNECT_REPLACE},
	};
	int rc = ROGUE_SAFE;
	for (size_t i = 0; i < sizeof(asks) / sizeof(*asks); i++) {
		uint8_t buf[RS_CONNECT_PRIVATE_MAX];
		size_t len = valid_request(asks[i].flags, RS_METHOD_AUTO, buf);
		rc = worse(rc, connect_case(r, asks[i].what, buf, (uint8_t)len,
					    RS_REJECT_BAD_REQUEST, true));
	}
	return rc;
}

/* Against an append-only log: a writer that knows where the committed
 * bytes are (a reader is told) and holds every key it was ever shown
 * writes over them; the NIC refuses each write. A writer shown a key to
 * the pool fails it at once: the log is not append-only. */
static int scenario_rewrite_committed(struct rogue *r, const char *arg)
{
	(void)arg;
	char err[512];
	struct rs_mr_desc log;
	int rc = reader_learn(r, &log);
	if (rc)
		return rc;
	if (session_open(r, RS_METHOD_AUTO, err, sizeof(err))) {
		note("could not run: %s", err);
		rogue_close(r);
		return ROGUE_NORUN;
	}
	/* Windows reach the unused tail only: no key to the pool itself. */
	bool pool_writable =
	    r->info.data.length != 0 && !(r->info.peer_flags & RS_PEER_WINDOWS);
	rogue_close(r);
	if (pool_writable) {
		note("a writer was shown a key to write the pool: the log is "
		     "not append-only");
		return ROGUE_UNSAFE;
	}
	rc = overwrite_case(r, "a writer with the staging ring's key", 0, &log,
			    true);
	return worse(rc, overwrite_case(r, "a writer with a reader's key", 0,
					&log, false));
}

/* A session the receiver ended (a malformed message), whose queue pair
 * writes on with the key it was shown: nothing lands. Gpspm where it is
 * offered (the key to the pool), else staged (the ring's). */
static int scenario_stale_session(struct rogue *r, const char *arg)
{
	(void)arg;
	char err[512];
	uint8_t method = RS_METHOD_GPSPM;
	if (session_open(r, method, err, sizeof(err))) {
		rogue_close(r);
		method = RS_METHOD_STAGED;
		if (session_open(r, method, err, sizeof(err))) {
			note("could not run: %s", err);
			rogue_close(r);
			return ROGUE_NORUN;
		}
	}
	struct rs_mr_desc dst =
	    method == RS_METHOD_GPSPM ? r->info.data : r->info.staging;
	dst.length = 16;
	send_raw(r, build_bad_msg(r, BM_GARBAGE));
	/* The receiver ends the session; our side stays up to write. */
	sleep_ms(CLOSE_GRACE_MS);
	memset(r->buf + OFF_PAYLOAD, 0xee, 16);
	int rc = ROGUE_SAFE;
	if (!rs_conn_write(r->conn, &dst, 0, r->mr, OFF_PAYLOAD, 16, WR_WRITE,
			   RS_POST_SIGNALED)) {
		struct outcome o;
		await(r, &o, 3 * REPLY_TIMEOUT_MS, WR_WRITE);
		if (o.write_done && o.write.ok) {
			note("a WRITE of an ended %s session SUCCEEDED",
			     rs_method_name((enum rs_method)method));
			rc = ROGUE_UNSAFE;
		} else {
			note("a write of an ended %s session: %s",
			     rs_method_name((enum rs_method)method),
			     o.write_done ? o.write.status : "no completion");
		}
	} else {
		note("an ended %s session cannot post a write: %s",
		     rs_method_name((enum rs_method)method), POST_LOST);
	}
	rogue_close(r);
	return rc;
}

/* A flush writer's session the receiver ended (a malformed message; a
 * writer taken over ends the same way): its queue pair stores a forged
 * write offset, the pool's end, with an ATOMIC WRITE and flushes it, as a
 * writer cut off might; nothing lands. */
static int scenario_stale_flush(struct rogue *r, const char *arg)
{
	(void)arg;
	char err[512];
	const char *why_not = 0;
	if (session_open(r, RS_METHOD_FLUSH, err, sizeof(err))) {
		note("could not run: %s", err);
		rogue_close(r);
		return ROGUE_NORUN;
	}
	if (!rs_conn_can_flush(r->conn, &why_not)) {
		note("could not run: %s", why_not);
		rogue_close(r);
		return ROGUE_NORUN;
	}
	struct rs_mr_desc word = r->info.write_offset;
	uint64_t forged = htole64(r->info.end_offset);
	memcpy(r->buf + OFF_PAYLOAD, &forged, sizeof(forged));
	send_raw(r, build_bad_msg(r, BM_GARBAGE));
	sleep_ms(CLOSE_GRACE_MS); /* the receiver ends the session */
	int rc = ROGUE_SAFE;
	if (rs_conn_atomic_write(r->conn, &word, 0, r->mr, OFF_PAYLOAD,
				 WR_WRITE, RS_POST_MORE) ||
	    rs_conn_flush(r->conn, &word, 0, 8, WR_WRITE, RS_POST_SIGNALED)) {
		note("an ended flush session cannot post: %s", POST_LOST);
	} else {
		struct outcome o;
		await(r, &o, 3 * REPLY_TIMEOUT_MS, WR_WRITE);
		if (o.write_done && o.write.ok) {
			note("an ended flush session's ATOMIC WRITE and FLUSH "
			     "of the write offset SUCCEEDED");
			rc = ROGUE_UNSAFE;
		} else {
			note("an ended flush session's ATOMIC WRITE and FLUSH "
			     "of the write offset: %s",
			     o.write_done ? o.write.status : "no completion");
		}
	}
	rogue_close(r);
	return rc;
}

/* ---- a well-behaved sender: write, then commit (gpspm) ---- */

/* Writes text to the write offset w of the log. Returns 0, or the verdict
 * when the write could not be posted or did not succeed. */
static int honest_write(struct rogue *r, const char *text, size_t n, uint64_t w)
{
	const struct rs_accept_info *in = &r->info;
	memcpy(r->buf + OFF_PAYLOAD, text, n);
	if (rs_conn_write(r->conn, &in->data, w - in->start_offset, r->mr,
			  OFF_PAYLOAD, (uint32_t)n, WR_WRITE,
			  RS_POST_SIGNALED)) {
		note("cannot post a write: %s", POST_LOST);
		return ROGUE_NORUN;
	}
	struct outcome o;
	await(r, &o, REPLY_TIMEOUT_MS, WR_WRITE);
	if (!o.write_done || !o.write.ok) {
		note("the write into the log failed: %s",
		     o.write_done ? o.write.status : "no completion");
		return ROGUE_UNSAFE;
	}
	return 0;
}

/* Commits [w, +n) with gpspm; safe when the receiver committed exactly it. */
/* flags: RS_MSG_LONE for a lone commit, or 0. */
static int honest_commit_as(struct rogue *r, size_t n, uint64_t w,
			    uint16_t flags)
{
	struct rs_msg req = {.type = RS_MSG_COMMIT,
			     .flags = flags,
			     .offset = w,
			     .length = n,
			     .key = r->key};
	if (send_msg(r, &req)) {
		note("cannot post a send: %s", POST_LOST);
		return ROGUE_NORUN;
	}
	struct outcome o;
	await(r, &o, REPLY_TIMEOUT_MS, WR_RECV);
	if (!o.replied || o.reply_malformed) {
		note("no usable reply to an honest commit (%s)",
		     o.reply_malformed ? rs_error_str(&o.reply_error)
		     : o.closed	       ? o.closed_how
				       : "timed out");
		return ROGUE_UNSAFE;
	}
	if (o.reply.status != RS_MSG_OK || o.reply.offset != w + n) {
		note("honest commit refused: status %s, write offset %llu",
		     status_name(o.reply.status),
		     (unsigned long long)o.reply.offset);
		return ROGUE_UNSAFE;
	}
	note("committed %zu bytes at log offset %llu, write offset now %llu", n,
	     (unsigned long long)w, (unsigned long long)o.reply.offset);
	return ROGUE_SAFE;
}

static int honest_commit(struct rogue *r, size_t n, uint64_t w)
{
	return honest_commit_as(r, n, w, 0);
}

static int scenario_honest(struct rogue *r, const char *arg)
{
	const char *text = arg ? arg : "rogue_sender: an honest chunk\n";
	size_t n = strlen(text);
	char err[512];
	if (n == 0 || n > PAYLOAD) {
		note("text must have 1 to %d bytes", PAYLOAD);
		return ROGUE_NORUN;
	}
	if (session_open(r, RS_METHOD_GPSPM, err, sizeof(err))) {
		note("%s", err);
		rogue_close(r);
		return ROGUE_NORUN;
	}
	uint64_t w = r->info.write_offset_value;
	if (n > r->info.end_offset - w) {
		note("the log is full");
		rogue_close(r);
		return ROGUE_NORUN;
	}
	int rc = honest_write(r, text, n, w);
	if (!rc)
		rc = honest_commit(r, n, w);
	rogue_close(r);
	return rc;
}

/* ---- a takeover through another RDMA device ---- */

#define BEFORE_TAKEOVER "rogue_sender: before the takeover\n"
#define AFTER_TAKEOVER "rogue_sender: after the takeover\n"

/* One honest chunk at the log's head by r's method m (gpspm, or a
 * one-sided writer's batch: then the chunk is rogue_offset.c's); *end:
 * the log's end after it. */
static int honest_by(struct rogue *r, uint8_t m, const char *text,
		     uint64_t *end)
{
	uint64_t w = r->info.write_offset_value;
	if (m != RS_METHOD_GPSPM)
		return os_honest_batch(r, m, end);
	*end = w + strlen(text);
	int rc = honest_write(r, text, strlen(text), w);
	return rc ? rc : honest_commit(r, strlen(text), w);
}

/* A writer of method m (ARG: METHOD@HOST, e.g. gpspm@192.0.2.2) commits
 * a chunk through the log's address; a second connection with its token
 * takes its session over through HOST (the same port), another address of
 * the receiver on another RDMA device, and commits a chunk there. Safe when the
 * takeover is granted at the log's end and its chunk commits (the test then
 * reads both chunks back). */
static int scenario_takeover_across(struct rogue *r, const char *arg)
{
	char host[256], name[16] = "", err[512];
	const char *at = arg ? strchr(arg, '@') : 0;
	if (!at || at - arg >= (ptrdiff_t)sizeof(name) ||
	    snprintf(host, sizeof(host), "%s:%s/%s", at + 1, r->ep.port,
		     r->name) >= (int)sizeof(host)) {
		note("ARG must be METHOD@HOST");
		return ROGUE_NORUN;
	}
	memcpy(name, arg, (size_t)(at - arg));
	uint8_t m = !strcmp(name, "gpspm") ? RS_METHOD_GPSPM : os_method(name);
	struct rogue b = {0};
	struct rs_target t;
	struct rs_error e = {0};
	if (rs_target_parse(host, &t, &e)) {
		note("%s: %s", host, rs_error_str(&e));
		return ROGUE_NORUN;
	}
	b.ep = t.endpoint;
	memcpy(b.name, r->name, sizeof(b.name));
	int rc = m == RS_METHOD_GPSPM ? (session_open(r, m, err, sizeof(err))
					     ? cannot_run(r, "a writer", err)
					     : 0)
				      : os_open(r, m, "a writer");
	uint64_t end = 0, after = 0;
	if (!rc)
		rc = honest_by(r, m, BEFORE_TAKEOVER, &end);
	if (rc) {
		rogue_close(r);
		return rc;
	}
	struct rs_connect_req req = {.flags = RS_CONNECT_TAKEOVER,
				     .method = m,
				     .methods = RS_METHOD_ALL,
				     .token = r->info.token};
	if (session_open_req(&b, &req, true, err, sizeof(err)) ||
	    (m == RS_METHOD_GPSPM && (b.info.peer_flags & RS_PEER_WINDOWS) &&
	     take_window(&b, err, sizeof(err)))) {
		rogue_close(r);
		return cannot_run(&b, "the takeover through the other device",
				  err);
	}
	if (b.info.write_offset_value != end) {
		note("the takeover was told the log ends at %llu, not %llu",
		     (unsigned long long)b.info.write_offset_value,
		     (unsigned long long)end);
		rc = ROGUE_UNSAFE;
	}
	rc = worse(rc, honest_by(&b, m, AFTER_TAKEOVER, &after));
	note("taken over through %s at %llu, a chunk committed there", at + 1,
	     (unsigned long long)end);
	rogue_close(&b);
	rogue_close(r);
	return rc;
}

/* ---- a writer over what it committed (memory windows) ---- */

#define CHUNK_A "rogue_sender: chunk A\n"
#define CHUNK_B "rogue_sender: chunk B\n"

/* Writes and commits text at the log's head, as rpma-send would (flags:
 * the commit's). */
static int honest_chunk(struct rogue *r, const char *text, uint64_t *w,
			uint16_t flags)
{
	size_t n = strlen(text);
	int rc = honest_write(r, text, n, *w);
	if (!rc)
		rc = honest_commit_as(r, n, *w, flags);
	*w += n;
	return rc;
}

/* A new gpspm session granted windows. */
static int windowed_writer(struct rogue *r, const char *name)
{
	char err[512];
	if (session_open(r, RS_METHOD_GPSPM, err, sizeof(err)))
		return cannot_run(r, name, err);
	if (r->info.peer_flags & RS_PEER_WINDOWS)
		return 0;
	note("%s: a writer was shown a key to the whole pool, no windows",
	     name);
	rogue_close(r);
	return ROGUE_UNSAFE;
}

/* A writer commits chunks A and B (the second commit moves its first key
 * away); then a reader's connection writes over A with the writer's
 * newest key (bound to the writer's queue pair), and the writer writes
 * over A with its first key. Each write must fail with a remote access
 * error and end its session; the log then holds what it held, A and B.
 * With "far": a new writer also writes over the log's first byte with the
 * key it was just given: refused where the device keeps windows to their
 * range, and on Soft-RoCE once the head is a page past it (the region
 * under the window starts at the head's page); and another writes just
 * past the end its window was given with (the receiver registers only
 * part of the tail: the device refuses the rest). With "lone": chunk A
 * alone, as a lone commit (RS_MSG_LONE): its reply alone must have moved
 * the first key away. */
static int scenario_writer_rewrites(struct rogue *r, const char *arg)
{
	bool lone = arg && !strcmp(arg, "lone");
	const char *name =
	    lone ? "its first key, after a lone commit, over its chunk A"
		 : "its first key, moved away, over its chunk A";
	int rc = windowed_writer(r, name);
	if (rc)
		return rc;
	uint32_t first_key = r->key;
	uint64_t first = r->info.write_offset_value, w = first;
	rc = honest_chunk(r, CHUNK_A, &w, lone ? RS_MSG_LONE : 0);
	if (!rc && !lone)
		rc = honest_chunk(r, CHUNK_B, &w, 0);
	if (rc) {
		rogue_close(r);
		return rc;
	}
	struct rs_mr_desc dst = r->info.data;
	dst.addr += first - r->info.start_offset;
	dst.length = 16;
	struct rogue reader = {.ep = r->ep};
	memcpy(reader.name, r->name, sizeof(reader.name));
	char err[512];
	const char *rname =
	    "the writer's newest key from a reader's connection";
	if (session_open_as(&reader, RS_CONNECT_VERIFY, RS_METHOD_AUTO, err,
			    sizeof(err))) {
		rc = cannot_run(&reader, rname, err);
	} else {
		dst.rkey = r->key;
		rc = write_judged(&reader, rname, &dst);
	}
	dst.rkey = first_key;
	rc = worse(rc, write_judged(r, name, &dst));
	if (!arg || strcmp(arg, "far"))
		return rc;
	name = "a new writer's key over the log's first byte";
	int far = windowed_writer(r, name);
	if (far)
		return worse(rc, far);
	dst = r->info.data;
	dst.length = 16;
	rc = worse(rc, write_judged(r, name, &dst));
	name = "a new writer's key past its window's end";
	if ((far = windowed_writer(r, name)))
		return worse(rc, far);
	if (r->key_end + 16 > r->info.end_offset) {
		note("%s: its window reaches the log's end", name);
		rogue_close(r);
		return worse(rc, ROGUE_UNSAFE);
	}
	dst = r->info.data;
	dst.addr += r->key_end - r->info.start_offset;
	dst.length = 16;
	return worse(rc, write_judged(r, name, &dst));
}

static const struct scenario {
	const char *name;
	int (*run)(struct rogue *r, const char *arg);
	const char *what;
} scenarios[] = {
    {"bad-magic", scenario_bad_magic, "connect with a wrong magic"},
    {"bad-version", scenario_bad_version,
     "connect with version 8, older than any the receiver speaks"},
    {"future-version", scenario_future_version,
     "connect with version 200: refused saying which the receiver speaks"},
    {"short", scenario_short, "connect with 3 bytes of private data"},
    {"unknown-flags", scenario_unknown_flags, "connect with flags 0x80"},
    {"unknown-method", scenario_unknown_method, "connect with method 9"},
    {"takeover-at-cap", scenario_takeover_at_cap,
     "a made-up takeover token on a log with no writer, the receiver at "
     "max-senders (run it so)"},
    {"bad-name", scenario_bad_name,
     "connect with a log name that is bad, has a space, or is not zero "
     "after its NUL"},
    {"commit-out-of-range", scenario_out_of_range,
     "gpspm commits beyond the log end and into the pool header"},
    {"commit-not-contiguous", scenario_not_contiguous,
     "gpspm commits not at the write offset"},
    {"staged-oversized", scenario_staged_oversized,
     "staged commits outside the staging ring"},
    {"malformed-message", scenario_malformed,
     "garbage, truncated, unknown, reply-type and oversized messages"},
    {"write-outside", scenario_write_outside,
     "RDMA writes outside the granted regions"},
    {"reader-writes", scenario_reader_writes,
     "a reader is shown nothing to write; its write over the log fails"},
    {"reader-reads-ahead", scenario_reader_reads_ahead,
     "a reader reads its last committed bytes, then 16 bytes past them"},
    {"reader-truncates", scenario_reader_truncates,
     "connect to verify and truncate or replace"},
    {"rewrite-committed", scenario_rewrite_committed,
     "(append-only log) write over committed bytes with every key shown"},
    {"writer-rewrites", scenario_writer_rewrites,
     "a windowed writer's keys over what it committed: a moved one, "
     "another queue pair's (far: also a new key over the first byte; "
     "lone: one lone commit moves the first key away)"},
    {"stale-session", scenario_stale_session,
     "write with the queue pair of a session the receiver ended"},
    {"stale-flush", scenario_stale_flush,
     "store and flush the write offset with the queue pair of a flush "
     "session the receiver ended"},
    {"offset-past-end", scenario_offset_past_end,
     "(apm|flush) an honest batch, then a write offset past the data "
     "range's end"},
    {"offset-before-start", scenario_offset_before_start,
     "(apm|flush) an honest batch, then a write offset before the data "
     "range's start"},
    {"offset-backwards", scenario_offset_backwards,
     "(apm|flush) an honest batch, then a write offset below it"},
    {"unflushed-offset", scenario_unflushed_offset,
     "(apm|flush) a batch whose offset is stored, not made persistent, "
     "and the writer gone: a reader is granted it"},
    {"offset-backwards-at-cut", scenario_offset_backwards_at_cut,
     "(apm|flush) an honest batch, then at sync point \"stopped\" a "
     "write offset below it made persistent, and the writer gone"},
    {"stale-keys-reader", scenario_stale_keys_reader,
     "(apm|flush) a writer taken over writes, stores and flushes with its "
     "old keys through a reader's session and its new one"},
    {"seal-commit", scenario_seal_commit,
     "(apm|flush) a writer asks for a rebase and, while the seal waits, "
     "commits past it (ROGUE_SYNC_DIR: sealing, acted)"},
    {"seal-takeover", scenario_seal_takeover,
     "(apm|flush) a takeover admitted before a writer's rebase answers its "
     "challenge while the seal waits (ROGUE_AUTH_KEY, ROGUE_SYNC_DIR)"},
    {"reader-after-rotation", scenario_reader_after_rotation,
     "(apm|flush) a reader's key to the committed prefix, used after the "
     "pool started over (ROGUE_SYNC_DIR)"},
    {"spare-key", scenario_spare_key,
     "(gpspm|challenge) WRITE and FLUSH with the keys of the receiver's "
     "regions over the whole data range (rdma res show mr)"},
    {"takeover-across", scenario_takeover_across,
     "(METHOD@HOST) a writer commits; a takeover with its token through "
     "HOST, another RDMA device of the receiver, commits after it"},
    {"honest", scenario_honest,
     "write TEXT (optional third argument) and commit it with gpspm"},
};
#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static int usage(void)
{
	fprintf(stderr,
		"usage: rogue_sender SCENARIO HOST[:PORT][/NAME] [TEXT]\n"
		"exit: 0 receiver refused safely, 1 receiver "
		"misbehaved, 2 could not run\nscenarios:\n");
	for (size_t i = 0; i < NSCENARIOS; i++)
		fprintf(stderr, "  %-22s %s\n", scenarios[i].name,
			scenarios[i].what);
	return ROGUE_NORUN;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4)
		return usage();
	const struct scenario *s = 0;
	for (size_t i = 0; i < NSCENARIOS; i++)
		if (!strcmp(argv[1], scenarios[i].name))
			s = &scenarios[i];
	if (!s)
		return usage();
	struct rogue r;
	memset(&r, 0, sizeof(r));
	struct rs_error e = {0};
	struct rs_target t;
	if (rs_target_parse(argv[2], &t, &e)) {
		fprintf(stderr, "rogue_sender: %s: %s\n", argv[2],
			rs_error_str(&e));
		return ROGUE_NORUN;
	}
	r.ep = t.endpoint;
	snprintf(r.name, sizeof(r.name), "%s", t.name);
	if (rogue_key_load())
		return ROGUE_NORUN;
	alarm(LAST_RESORT_S);
	int rc = s->run(&r, argc > 3 ? argv[3] : 0);
	printf("%s: %s: %s\n", s->name,
	       rc == ROGUE_SAFE	    ? "ok"
	       : rc == ROGUE_UNSAFE ? "RECEIVER MISBEHAVED"
				    : "could not run",
	       report);
	return rc;
}
