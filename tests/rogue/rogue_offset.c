/* The scenarios of a one-sided writer (apm, flush: it stores the log's
 * write offset itself) that the receiver must take as input: an offset
 * past the data range, before it, or below what was committed; an offset
 * stored and never made persistent before the writer went away; and a
 * writer taken over whose old keys, kept, must reach nothing through a
 * reader's queue pair or its own new one. The third argument says which
 * method (flush, the default, or apm). */
#include "rogue_offset.h"

#include "proto/method.h"
#include "rdma/mr.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

/* What a one-sided writer commits here, once per scenario. */
#define ONE_SIDED_CHUNK "rogue_sender: one-sided chunk\n"
/* Where the offset word's 8 bytes are staged in the rogue's buffer, and
 * where a read-after-write lands. */
#define OFF_WORD (OFF_PAYLOAD + PAYLOAD - 128)
#define OFF_READBACK (OFF_PAYLOAD + PAYLOAD - 64)

uint8_t os_method(const char *arg)
{
	return arg && !strcmp(arg, "apm") ? RS_METHOD_APM : RS_METHOD_FLUSH;
}

/* A writer's session by method m, granted keys to the log and its offset
 * word; NORUN when the receiver does not offer m or this end cannot post
 * it. */
int os_open(struct rogue *r, uint8_t m, const char *name)
{
	char err[512];
	const char *why_not = 0;
	if (session_open(r, m, err, sizeof(err)))
		return cannot_run(r, name, err);
	if (m == RS_METHOD_FLUSH && !rs_conn_can_flush(r->conn, &why_not))
		return cannot_run(r, name, why_not);
	const struct rs_accept_info *in = &r->info;
	if (!(in->methods & RS_METHOD_BIT(m)) || in->write_offset.length != 8 ||
	    !in->data.rkey)
		return cannot_run(r, name, "no key to the log and its offset");
	return 0;
}

/* Posts what makes [off, +len) of dst persistent by method m: an RDMA
 * FLUSH, or for apm a read after the write, of the offset word (the one
 * region apm's writer may read), unfenced as rpma-send posts it. */
static int post_persist(struct rogue *r, uint8_t m,
			const struct rs_mr_desc *dst, uint64_t off,
			uint32_t len)
{
	if (m == RS_METHOD_FLUSH)
		return rs_conn_flush(r->conn, dst, off, len, WR_WRITE,
				     RS_POST_SIGNALED);
	return rs_conn_read(r->conn, r->mr, OFF_READBACK, &r->info.write_offset,
			    0, 8, WR_WRITE, RS_POST_SIGNALED);
}

/* The last operation posted completed well; else noted, and -1. */
static int completed(struct rogue *r, const char *what)
{
	struct outcome o;
	await(r, &o, REPLY_TIMEOUT_MS, WR_WRITE);
	if (o.write_done && o.write.ok)
		return 0;
	note("%s failed: %s", what,
	     o.write_done ? o.write.status : "no completion");
	return -1;
}

/* Stores value in the offset word as method m does (an ATOMIC WRITE, or a
 * WRITE of 8 bytes), made persistent when asked. */
int os_store_offset(struct rogue *r, uint8_t m, uint64_t value, bool persist)
{
	uint64_t le = htole64(value);
	memcpy(r->buf + OFF_WORD, &le, sizeof(le));
	const struct rs_mr_desc *word = &r->info.write_offset;
	unsigned flags =
	    RS_POST_FENCE | (persist ? RS_POST_MORE : RS_POST_SIGNALED);
	int rc = m == RS_METHOD_FLUSH
		     ? rs_conn_atomic_write(r->conn, word, 0, r->mr, OFF_WORD,
					    WR_WRITE, flags)
		     : rs_conn_write(r->conn, word, 0, r->mr, OFF_WORD, 8,
				     WR_WRITE, flags);
	if (!rc && persist)
		rc = post_persist(r, m, word, 0, 8);
	if (rc) {
		note("cannot post the offset's store: %s", POST_LOST);
		return -1;
	}
	return completed(r, "storing the write offset");
}

/* Writes the chunk at write offset w and makes it persistent, as a batch
 * of method m. */
int os_write_chunk(struct rogue *r, uint8_t m, uint64_t w)
{
	const struct rs_accept_info *in = &r->info;
	uint32_t n = sizeof(ONE_SIDED_CHUNK) - 1;
	memcpy(r->buf + OFF_PAYLOAD, ONE_SIDED_CHUNK, n);
	if (rs_conn_write(r->conn, &in->data, w - in->start_offset, r->mr,
			  OFF_PAYLOAD, n, WR_WRITE, RS_POST_MORE) ||
	    post_persist(r, m, &in->data, w - in->start_offset, n)) {
		note("cannot post the chunk: %s", POST_LOST);
		return -1;
	}
	return completed(r, "writing the chunk");
}

/* An honest batch: the chunk at the log's end, then its offset, both
 * persistent. *end: the log's end after it. */
int os_honest_batch(struct rogue *r, uint8_t m, uint64_t *end)
{
	uint64_t w = r->info.write_offset_value;
	if (r->info.end_offset - w < sizeof(ONE_SIDED_CHUNK)) {
		note("the log is full");
		return ROGUE_NORUN;
	}
	*end = w + sizeof(ONE_SIDED_CHUNK) - 1;
	if (os_write_chunk(r, m, w) || os_store_offset(r, m, *end, true))
		return ROGUE_NORUN;
	return 0;
}

int os_open_batch(struct rogue *r, uint8_t m, const char *name, uint64_t *end)
{
	int rc = os_open(r, m, name);
	if (!rc)
		rc = os_honest_batch(r, m, end);
	if (rc)
		rogue_close(r);
	return rc;
}

/* Where a reader is told the log ends now: what the receiver checked and
 * made persistent before its grant. */
static int reader_sees_end(const struct rogue *r, uint64_t *end)
{
	struct rogue reader = {.ep = r->ep};
	memcpy(reader.name, r->name, sizeof(reader.name));
	char err[512];
	int rc = session_open_as(&reader, RS_CONNECT_VERIFY, RS_METHOD_AUTO,
				 err, sizeof(err));
	if (rc)
		note("a reader could not connect: %s", err);
	else
		*end = reader.info.write_offset_value;
	rogue_close(&reader);
	return rc ? ROGUE_NORUN : 0;
}

/* A reader is told the log ends at want. */
int os_end_is(const struct rogue *r, uint64_t want, const char *when)
{
	uint64_t end = 0;
	int rc = reader_sees_end(r, &end);
	if (rc)
		return rc;
	if (end != want) {
		note("%s, a reader is told the log ends at %llu, not %llu",
		     when, (unsigned long long)end, (unsigned long long)want);
		return ROGUE_UNSAFE;
	}
	note("%s, a reader is told the log ends at %llu", when,
	     (unsigned long long)end);
	return ROGUE_SAFE;
}

/* The receiver ends the session of a writer whose offset broke a rule. */
int os_ended_by_receiver(struct rogue *r)
{
	struct outcome o;
	await(r, &o, 3 * REPLY_TIMEOUT_MS, 0);
	if (!o.closed) {
		note("the receiver did not end the session");
		return ROGUE_UNSAFE;
	}
	note("the receiver ended the session (%s)", o.closed_how);
	return ROGUE_SAFE;
}

enum broken_offset { PAST_END, BEFORE_START, BACKWARDS };

/* An honest batch, seen by a reader; then an offset that breaks a rule,
 * stored and made persistent: the session ends, and a reader is told the
 * log ends where the honest batch left it. */
static int broken_offset_case(struct rogue *r, const char *arg,
			      enum broken_offset b)
{
	static const char *const names[] = {"past the data range's end",
					    "before the data range's start",
					    "below what was committed"};
	uint8_t m = os_method(arg);
	uint64_t good = 0;
	int rc = os_open_batch(r, m, names[b], &good);
	if (rc)
		return rc;
	rc = os_end_is(r, good, "after an honest batch");
	if (rc) {
		rogue_close(r);
		return rc;
	}
	const struct rs_accept_info *in = &r->info;
	uint64_t bad = b == PAST_END	   ? in->end_offset + 4096
		       : b == BEFORE_START ? in->start_offset - 8
					   : good - 8;
	note("%s stores write offset %llu, %s",
	     rs_method_name((enum rs_method)m), (unsigned long long)bad,
	     names[b]);
	if (os_store_offset(r, m, bad, true)) {
		rogue_close(r);
		return ROGUE_NORUN;
	}
	rc = os_ended_by_receiver(r);
	rogue_close(r);
	return worse(rc, os_end_is(r, good, "then"));
}

int scenario_offset_past_end(struct rogue *r, const char *arg)
{
	return broken_offset_case(r, arg, PAST_END);
}

int scenario_offset_before_start(struct rogue *r, const char *arg)
{
	return broken_offset_case(r, arg, BEFORE_START);
}

int scenario_offset_backwards(struct rogue *r, const char *arg)
{
	return broken_offset_case(r, arg, BACKWARDS);
}

/* The chunk persistent, its offset stored but not made persistent, then
 * the writer goes at once: the next grant reports the offset, which the
 * receiver made persistent first (the test kills it right after and reads
 * the pool). */
int scenario_unflushed_offset(struct rogue *r, const char *arg)
{
	uint8_t m = os_method(arg);
	int rc = os_open(r, m, "an unflushed offset");
	if (rc)
		return rc;
	uint64_t w = r->info.write_offset_value;
	uint64_t end = w + sizeof(ONE_SIDED_CHUNK) - 1;
	if (r->info.end_offset < end || os_write_chunk(r, m, w) ||
	    os_store_offset(r, m, end, false)) {
		rogue_close(r);
		return ROGUE_NORUN;
	}
	note("%s stored write offset %llu and went without making it "
	     "persistent",
	     rs_method_name((enum rs_method)m), (unsigned long long)end);
	rogue_close(r);
	rc = os_end_is(r, end, "then");
	if (rc == ROGUE_SAFE)
		note("granted write offset %llu", (unsigned long long)end);
	return rc;
}

/* An honest batch, adopted (a reader is told of it); then, at the test's
 * sync point "stopped" (the receiver stopped, so that it never sees the
 * word), an offset below it stored and made persistent by the writer
 * itself, and the writer gone. The test then cuts the PMem with the word
 * as the writer left it: the receiver's next open must put back the floor
 * (pool/pmem_target.c), which only a persistent floor can say. */
int scenario_offset_backwards_at_cut(struct rogue *r, const char *arg)
{
	uint8_t m = os_method(arg);
	uint64_t good = 0;
	int rc = os_open_batch(r, m, "a word below the floor at a cut", &good);
	if (!rc)
		rc = os_end_is(r, good, "after an honest batch");
	if (rc || sync_point("stopped")) {
		rogue_close(r);
		return rc ? rc : ROGUE_NORUN;
	}
	note("%s stores write offset %llu, below what was committed, and "
	     "makes it persistent while the receiver is stopped",
	     rs_method_name((enum rs_method)m), (unsigned long long)(good - 8));
	rc = os_store_offset(r, m, good - 8, true) ? ROGUE_NORUN : ROGUE_SAFE;
	rogue_close(r);
	return rc;
}

/* ---- a writer taken over, with the keys it kept ---- */

/* b connects as the writer taking over the session whose grant was old. */
static int take_over(struct rogue *b, const struct rs_accept_info *old,
		     uint8_t m)
{
	struct rs_connect_req req = {.flags = RS_CONNECT_TAKEOVER,
				     .method = m,
				     .methods = RS_METHOD_ALL,
				     .token = old->token};
	char err[512] = "";
	if (session_open_req(b, &req, true, err, sizeof(err))) {
		note("the takeover was not granted: %s", err);
		return -1;
	}
	return 0;
}

enum stale_op { STALE_WRITE, STALE_OFFSET, STALE_FLUSH };

/* On r's session, one operation with the taken-over writer's old keys: a
 * WRITE over the log's first bytes, a store of the offset word (as m does
 * it) or a FLUSH of the log. Safe when the receiver's device refuses it. */
static int stale_op_judged(struct rogue *r, const char *via,
			   const struct rs_accept_info *old, uint8_t m,
			   enum stale_op op)
{
	static const char *const what[] = {"WRITE over the log",
					   "store of the write offset",
					   "FLUSH of the log"};
	uint64_t forged = htole64(old->end_offset);
	memcpy(r->buf + OFF_WORD, &forged, sizeof(forged));
	memset(r->buf + OFF_PAYLOAD, 0xee, 16);
	int rc;
	if (op == STALE_WRITE)
		rc = rs_conn_write(r->conn, &old->data, 0, r->mr, OFF_PAYLOAD,
				   16, WR_WRITE, RS_POST_SIGNALED);
	else if (op == STALE_FLUSH)
		rc = rs_conn_flush(r->conn, &old->data, 0, 16, WR_WRITE,
				   RS_POST_SIGNALED);
	else if (m == RS_METHOD_FLUSH)
		rc = rs_conn_atomic_write(r->conn, &old->write_offset, 0, r->mr,
					  OFF_WORD, WR_WRITE, RS_POST_SIGNALED);
	else
		rc = rs_conn_write(r->conn, &old->write_offset, 0, r->mr,
				   OFF_WORD, 8, WR_WRITE, RS_POST_SIGNALED);
	struct outcome o;
	if (!rc)
		await(r, &o, REPLY_TIMEOUT_MS, WR_WRITE);
	rogue_close(r);
	if (rc) {
		note("%s: the old keys' %s cannot be posted", via, what[op]);
		return ROGUE_SAFE;
	}
	if (o.write_done && o.write.ok) {
		note("%s: the old keys' %s SUCCEEDED", via, what[op]);
		return ROGUE_UNSAFE;
	}
	const char *how = o.write_done ? o.write.status : "no completion";
	note("%s: the old keys' %s: %s", via, what[op], how);
	return refused_by_nic(how) ? ROGUE_SAFE : ROGUE_UNSAFE;
}

/* Each operation from first on, on a session of its own (the first
 * refusal ends a session): a reader's, or a later writer's of the old
 * writer's method (a WRITE with its data key, a store with its word key,
 * and for flush a FLUSH with its data key): a later writer is handed keys
 * of its own, never the old ones again. */
static int through_sessions(const struct rogue *r,
			    const struct rs_accept_info *old, uint8_t m,
			    enum stale_op first, bool as_writer)
{
	int rc = ROGUE_SAFE;
	for (int op = first; op <= STALE_FLUSH; op++) {
		if (op == STALE_FLUSH && m != RS_METHOD_FLUSH)
			break;
		struct rogue s = {.ep = r->ep};
		memcpy(s.name, r->name, sizeof(s.name));
		char err[512];
		int open = as_writer ? os_open(&s, m, "a later writer")
			   : session_open_as(&s, RS_CONNECT_VERIFY,
					     RS_METHOD_AUTO, err, sizeof(err))
			       ? cannot_run(&s, "a reader", err)
			       : 0;
		if (open)
			return worse(rc, open);
		rc = worse(rc, stale_op_judged(&s,
					       as_writer
						   ? "a later writer's session"
						   : "a reader's session",
					       old, m, (enum stale_op)op));
	}
	return rc;
}

/* A reader's session WRITEs with the live key of the writer of now: its
 * queue pair may only read. */
static int live_key_through_reader(const struct rogue *r,
				   const struct rs_accept_info *live)
{
	struct rogue reader = {.ep = r->ep};
	memcpy(reader.name, r->name, sizeof(reader.name));
	char err[512];
	if (session_open_as(&reader, RS_CONNECT_VERIFY, RS_METHOD_AUTO, err,
			    sizeof(err)))
		return cannot_run(&reader, "a reader", err);
	struct rs_mr_desc dst = live->data;
	dst.addr += live->write_offset_value - live->start_offset;
	dst.length = 16;
	memset(reader.buf + OFF_PAYLOAD, 0xee, 16);
	struct outcome o;
	int rc = rs_conn_write(reader.conn, &dst, 0, reader.mr, OFF_PAYLOAD, 16,
			       WR_WRITE, RS_POST_SIGNALED);
	if (!rc)
		await(&reader, &o, REPLY_TIMEOUT_MS, WR_WRITE);
	rogue_close(&reader);
	if (rc || !o.write_done || !o.write.ok) {
		note("a reader's session: the live writer's key: %s",
		     rc		    ? POST_LOST
		     : o.write_done ? o.write.status
				    : "no completion");
		return rc || o.write_done ? ROGUE_SAFE : ROGUE_UNSAFE;
	}
	note("a reader's session: a WRITE with the live writer's key "
	     "SUCCEEDED");
	return ROGUE_UNSAFE;
}

/* A writer commits a chunk and is taken over (a new connection with its
 * token); its old keys then reach nothing, through a reader's queue pair
 * or through the new writer's own, and the log still ends with the
 * chunk. */
int scenario_stale_keys_reader(struct rogue *r, const char *arg)
{
	uint8_t m = os_method(arg);
	uint64_t good = 0;
	int rc = os_open_batch(r, m, "a writer to take over", &good);
	if (rc)
		return rc;
	struct rs_accept_info old = r->info;
	struct rogue b = {.ep = r->ep};
	memcpy(b.name, r->name, sizeof(b.name));
	if (take_over(&b, &old, m)) {
		rogue_close(&b);
		rogue_close(r);
		return ROGUE_NORUN;
	}
	rogue_close(r);
	note("%s writer taken over", rs_method_name((enum rs_method)m));
	rc = through_sessions(r, &old, m, STALE_WRITE, false);
	/* A reader's queue pair takes no write, even with a live key. */
	rc = worse(rc, live_key_through_reader(r, &b.info));
	rc = worse(rc, stale_op_judged(&b, "the new writer's session", &old, m,
				       STALE_WRITE));
	rc = worse(rc, through_sessions(r, &old, m, STALE_WRITE, true));
	return worse(rc, os_end_is(r, good, "then"));
}
