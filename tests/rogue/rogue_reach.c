/* What a peer can reach of the receiver's memory with a key it was never
 * given: the receiver's regions over the whole data range (registered
 * ahead for the next apm or flush writer), by their own keys, read off the
 * kernel's list of the receiver's regions (`rdma res show mr`, as root):
 * no guess is needed, so a refusal here holds for every key a peer could
 * guess. Tried through a gpspm writer's queue pair (ARG "gpspm") and
 * through a peer's in its auth challenge ("challenge", a log with a key),
 * a WRITE each, and a FLUSH where this build has it. */
#include "rogue_reach.h"

#include "proto/method.h"
#include "rdma/mr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REACH_KEYS_MAX 16

/* The rkeys of the receiver's (rpma-recv's) regions of len bytes. */
static size_t receiver_keys(uint64_t len, uint32_t *keys, size_t max)
{
	FILE *p = popen("rdma res show mr 2>/dev/null", "r");
	char line[512];
	size_t n = 0;
	while (p && n < max && fgets(line, sizeof(line), p)) {
		char *rkey = strstr(line, " rkey "),
		     *mrlen = strstr(line, " mrlen ");
		if (!rkey || !mrlen || !strstr(line, " comm rpma-recv"))
			continue;
		if (strtoull(mrlen + 7, 0, 10) == len)
			keys[n++] = (uint32_t)strtoul(rkey + 6, 0, 16);
	}
	if (p)
		pclose(p);
	return n;
}

/* Where the data range lies: a gpspm writer's grant describes it (with
 * no key of its own where windows reach it). */
static int data_range(const struct rogue *r, struct rs_mr_desc *range)
{
	struct rogue w = {.ep = r->ep};
	memcpy(w.name, r->name, sizeof(w.name));
	char err[512];
	if (session_open(&w, RS_METHOD_GPSPM, err, sizeof(err)))
		return cannot_run(&w, "a gpspm writer", err);
	*range = w.info.data;
	rogue_close(&w);
	return range->length ? 0 : ROGUE_NORUN;
}

/* A session of the kind asked for: a gpspm writer, or a peer left in
 * its challenge. */
static int open_as(struct rogue *s, bool challenge, char *err, size_t len)
{
	if (!challenge)
		return session_open(s, RS_METHOD_GPSPM, err, len);
	struct rs_connect_req req = {.method = RS_METHOD_GPSPM,
				     .methods = RS_METHOD_ALL};
	if (session_open_req(s, &req, false, err, len))
		return -1;
	if (!s->challenged) {
		snprintf(err, len, "the log asks no key");
		return -1;
	}
	return 0;
}

/* One operation with key over the data range's last 16 bytes (nothing
 * committed there), on a session of its own. */
static int try_key(const struct rogue *r, bool challenge,
		   const struct rs_mr_desc *range, uint32_t key, bool flush)
{
	struct rogue s = {.ep = r->ep};
	memcpy(s.name, r->name, sizeof(s.name));
	char err[512];
	if (open_as(&s, challenge, err, sizeof(err)))
		return cannot_run(&s,
				  challenge ? "a peer in its challenge"
					    : "a gpspm writer",
				  err);
	const char *why_not = 0;
	if (flush && !rs_conn_can_flush(s.conn, &why_not)) {
		rogue_close(&s); /* this end cannot post one */
		return ROGUE_SAFE;
	}
	struct rs_mr_desc dst = *range;
	dst.rkey = key;
	uint64_t at = range->length - 16;
	memset(s.buf + OFF_PAYLOAD, 0xee, 16);
	int rc = flush ? rs_conn_flush(s.conn, &dst, at, 16, WR_WRITE,
				       RS_POST_SIGNALED)
		       : rs_conn_write(s.conn, &dst, at, s.mr, OFF_PAYLOAD, 16,
				       WR_WRITE, RS_POST_SIGNALED);
	char what[160];
	snprintf(what, sizeof(what), "%s, key 0x%x",
		 challenge ? "a peer in its challenge" : "a gpspm writer", key);
	if (rc) {
		note("%s: its %s cannot be posted", what,
		     flush ? "FLUSH" : "WRITE");
		rogue_close(&s);
		return ROGUE_SAFE;
	}
	struct outcome o;
	await(&s, &o, REPLY_TIMEOUT_MS, WR_WRITE);
	rc = access_verdict(what, flush ? "FLUSH" : "WRITE", &o);
	rogue_close(&s);
	return rc;
}

int scenario_spare_key(struct rogue *r, const char *arg)
{
	bool challenge = arg && !strcmp(arg, "challenge");
	struct rs_mr_desc range;
	int rc = data_range(r, &range);
	if (rc)
		return rc;
	uint32_t keys[REACH_KEYS_MAX];
	size_t n = receiver_keys(range.length, keys, REACH_KEYS_MAX);
	if (!n) {
		note("no region of the receiver's spans the data range's %llu "
		     "bytes (rdma res show mr): nothing registered ahead",
		     (unsigned long long)range.length);
		return ROGUE_NORUN;
	}
	for (size_t i = 0; i < n; i++) {
		rc = worse(rc, try_key(r, challenge, &range, keys[i], false));
		rc = worse(rc, try_key(r, challenge, &range, keys[i], true));
	}
	return rc;
}
