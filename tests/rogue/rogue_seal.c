/* The scenarios of a log being rotated: a writer asks for a rebase (its
 * pool archived and started over) and, while the receiver waits for the
 * archive, does what must not count: a one-sided writer stores an offset
 * past the seal, a takeover answers its auth challenge; and a reader's key
 * to the pool's committed prefix, used after the pool started over. The
 * test holds the receiver at the seal (RPMA_RECV_STOP_AT=archive-sealed)
 * and answers the scenario's sync points (ROGUE_SYNC_DIR): "sealing" once
 * the receiver is stopped there, "acted" once it may go on. ARG: the
 * writer's method, "apm" or "flush" (the default). */
#include "rogue_seal.h"

#include "rogue_offset.h"

#include "proto/method.h"
#include "rdma/mr.h"

#include <string.h>

#define SEAL_CHUNK "rogue_sender: one-sided chunk\n"

/* Asks for the rebase of what r committed, up to end; the receiver holds
 * at the seal until the test answers "sealing". */
static int ask_rebase(struct rogue *r, uint64_t end)
{
	struct rs_msg m = {.type = RS_MSG_REBASE, .offset = end};
	if (send_msg(r, &m)) {
		note("cannot ask for a rebase: %s", POST_LOST);
		return ROGUE_NORUN;
	}
	note("asked for a rebase at %llu", (unsigned long long)end);
	return sync_point("sealing") ? ROGUE_NORUN : 0;
}

/* The rebase's answer to r: *ok when it says the pool started over. */
static int rebase_answer(struct rogue *r, bool *ok)
{
	struct outcome o;
	*ok = false;
	for (int i = 0; i < 4; i++) {
		await(r, &o, 3 * REPLY_TIMEOUT_MS, WR_RECV);
		if (!o.replied || o.reply_malformed)
			break;
		if (o.reply.type == RS_MSG_REBASE_DONE) {
			*ok = o.reply.status == RS_MSG_OK;
			note("the rebase was answered: %s",
			     status_name(o.reply.status));
			return 0;
		}
	}
	note("no answer to the rebase%s%s", o.closed ? ": " : "",
	     o.closed ? o.closed_how : "");
	return o.closed ? 0 : -1;
}

/* A one-sided writer commits a batch and asks for a rebase; while the seal
 * waits it writes a second chunk past the seal and stores its offset,
 * persistent. The receiver must not count it: the rebase would drop it.
 * Safe when the writer's session is ended (never answered OK) and a reader
 * then finds the pool started over after the sealed batch alone. */
int scenario_seal_commit(struct rogue *r, const char *arg)
{
	uint8_t m = os_method(arg);
	uint64_t sealed = 0;
	int rc = os_open_batch(r, m, "a writer past the seal", &sealed);
	if (rc)
		return rc;
	uint64_t base = r->info.log_base, start = r->info.start_offset;
	rc = ask_rebase(r, sealed);
	if (rc) {
		rogue_close(r);
		return rc;
	}
	uint64_t past = sealed + sizeof(SEAL_CHUNK) - 1;
	bool stored =
	    !os_write_chunk(r, m, sealed) && !os_store_offset(r, m, past, true);
	note("while the seal waited: %s write offset %llu %s",
	     rs_method_name((enum rs_method)m), (unsigned long long)past,
	     stored ? "stored, persistent" : "NOT stored");
	if (sync_point("acted") || !stored) {
		rogue_close(r);
		return ROGUE_NORUN;
	}
	bool ok = false;
	rc = rebase_answer(r, &ok) ? ROGUE_UNSAFE : ROGUE_SAFE;
	if (ok) {
		note("the rotation FINISHED with what was committed past the "
		     "seal in it");
		rc = ROGUE_UNSAFE;
	}
	rogue_close(r);
	/* The sealed batch is in the archive; the pool starts after it. */
	struct rogue reader = {.ep = r->ep};
	memcpy(reader.name, r->name, sizeof(reader.name));
	char err[512];
	if (session_open_as(&reader, RS_CONNECT_VERIFY, RS_METHOD_AUTO, err,
			    sizeof(err)))
		return worse(rc, cannot_run(&reader, "a reader", err));
	const struct rs_accept_info *in = &reader.info;
	bool rotated = in->write_offset_value == in->start_offset &&
		       in->log_base == base + (sealed - start);
	note("then a reader is told the pool starts at log position %llu and "
	     "holds %llu bytes",
	     (unsigned long long)in->log_base,
	     (unsigned long long)(in->write_offset_value - in->start_offset));
	rogue_close(&reader);
	return worse(rc, rotated ? ROGUE_SAFE : ROGUE_UNSAFE);
}

/* A writer holds the log (with the auth key) and asks for a rebase; a
 * takeover with its token, admitted before, answers its challenge while
 * the seal waits. The log is the writer's until the rotation is over: the
 * takeover must not be granted (the grant would say where the log ends,
 * and the rotation then starts the pool over under it). The test holds
 * only the archiver at the seal (RPMA_RECV_HOLD_FILE), so the answer is
 * taken while it waits, before "acted" lets the seal go on: with the
 * whole receiver stopped, the seal could finish first once continued. */
int scenario_seal_takeover(struct rogue *r, const char *arg)
{
	uint8_t m = os_method(arg);
	uint64_t sealed = 0;
	char err[512];
	if (!rogue_key)
		return cannot_run(r, "a takeover in a seal",
				  "it needs the log's key (ROGUE_AUTH_KEY)");
	int rc = os_open_batch(r, m, "a writer that rotates", &sealed);
	if (rc)
		return rc;
	struct rogue b = {.ep = r->ep};
	memcpy(b.name, r->name, sizeof(b.name));
	struct rs_connect_req req = {.flags = RS_CONNECT_TAKEOVER,
				     .method = m,
				     .methods = RS_METHOD_ALL,
				     .token = r->info.token};
	err[0] = 0;
	if (session_open_req(&b, &req, false, err, sizeof(err)) ||
	    !b.challenged) {
		rogue_close(r);
		return cannot_run(&b, "a takeover in its challenge",
				  err[0] ? err : "no challenge");
	}
	rc = ask_rebase(r, sealed);
	if (!rc && send_auth_answer(&b, &req.token, err, sizeof(err)))
		rc = ROGUE_NORUN;
	if (!rc && take_grant(&b, err, sizeof(err))) {
		note("the takeover answering while the seal waited: %s", err);
	} else if (!rc) {
		note(
		    "the takeover was GRANTED while the log's rotation waited");
		rc = ROGUE_UNSAFE;
	}
	rogue_close(&b);
	if (rc != ROGUE_NORUN && sync_point("acted") && !rc)
		rc = ROGUE_NORUN;
	bool ok = false;
	if (rc != ROGUE_NORUN && !rebase_answer(r, &ok) && !ok)
		note("the writer's rotation was not finished");
	rogue_close(r);
	return rc;
}

/* A reader is granted a key to the committed prefix; the writer rotates
 * the log, then writes (and does not commit) its next chunk where the
 * pool starts over. The reader's key must no longer read the pool: it
 * would read what no writer committed. */
int scenario_reader_after_rotation(struct rogue *r, const char *arg)
{
	uint8_t m = os_method(arg);
	uint64_t sealed = 0;
	char err[512];
	int rc = os_open_batch(r, m, "a writer that rotates", &sealed);
	if (rc)
		return rc;
	struct rogue reader = {.ep = r->ep};
	memcpy(reader.name, r->name, sizeof(reader.name));
	if (!rc && session_open_as(&reader, RS_CONNECT_VERIFY, RS_METHOD_AUTO,
				   err, sizeof(err)))
		rc = cannot_run(&reader, "a reader", err);
	if (!rc && !reader.info.data_read.length)
		rc = cannot_run(&reader, "a reader", "no key to the pool");
	bool ok = false;
	if (!rc)
		rc = ask_rebase(r, sealed);
	if (!rc)
		rc = sync_point("acted") || rebase_answer(r, &ok) || !ok
			 ? ROGUE_NORUN
			 : 0;
	if (!rc)
		rc = os_write_chunk(r, m, r->info.start_offset) ? ROGUE_NORUN
								: 0;
	if (rc) {
		rogue_close(&reader);
		rogue_close(r);
		return rc;
	}
	note("the pool started over; the writer wrote its next chunk there, "
	     "uncommitted");
	struct rs_mr_desc src = reader.info.data_read;
	src.length = sizeof(SEAL_CHUNK) - 1;
	struct outcome o;
	rc = rs_conn_read(reader.conn, reader.mr, OFF_PAYLOAD, &src, 0,
			  (uint32_t)src.length, WR_WRITE, RS_POST_SIGNALED);
	if (!rc)
		await(&reader, &o, REPLY_TIMEOUT_MS, WR_WRITE);
	rc = rc ? ROGUE_SAFE
		: access_verdict("the reader's key after the rotation", "READ",
				 &o);
	rogue_close(&reader);
	rogue_close(r);
	return rc;
}
