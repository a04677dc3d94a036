/* The fleet's start and end: connecting every replica, agreeing, sizing the
 * ring; the closing report. Events, losses and reconnects:
 * replicas/fleet_events.c, which this file calls (fleet_lose, fleet_replacing)
 * and which calls nothing here. */
#include "replicas/fleet_internal.h"

#include "cli/log.h"
#include "cli/size.h"
#include "common/stop.h"
#include "error.h"
#include "proto/message.h"
#include "replicas/agreement.h"
#include "stream/window_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fleet *fleet_new(const struct ship_config *cfg,
			const struct window_link *link)
{
	struct fleet *f = calloc(1, sizeof(*f));
	if (!f)
		return 0;
	f->cfg = cfg;
	f->n = cfg->ntargets ? cfg->ntargets : 1;
	for (unsigned i = 0; i < f->n; i++) {
		f->replicas[i] = replica_new(
		    cfg, cfg->ntargets ? &cfg->targets[i] : &cfg->remote, i);
		if (!f->replicas[i])
			break;
	}
	f->w = window_new(link);
	if (f->w && f->replicas[f->n - 1])
		return f;
	fleet_delete(f);
	return 0;
}

void fleet_delete(struct fleet *f)
{
	if (!f)
		return;
	for (unsigned i = 0; i < f->n; i++)
		replica_delete(f->replicas[i]);
	window_delete(f->w);
	free(f);
}

struct send_window *fleet_window(const struct fleet *f)
{
	return f->w;
}

/* The method it will use and where its log lies. */
static int plan_replica(struct fleet *f, struct replica *r)
{
	struct rs_error err = {0};
	int rc = replica_plan(r, f->cfg->method, &err);
	if (rc && f->n > 1)
		rs_err("%s: %s", replica_label(r), err.msg);
	else if (rc)
		rs_err("%s", err.msg);
	return rc;
}

/* The first connection, retried up to --retry times with doubling
 * back-off while the receiver is not there or busy. */
static int connect_first(struct fleet *f, struct replica *r)
{
	uint16_t slots =
	    f->cfg->depth == SHIP_DEPTH_AUTO ? SHIP_DEPTH_MAX : f->cfg->depth;
	unsigned backoff = SEND_BACKOFF_FIRST_MS;
	for (unsigned attempt = 0;; attempt++) {
		if (send_stop_requested)
			return RS_E_INTERRUPTED;
		/* before the stream: a hinted wait holds nothing up */
		int rc = replica_connect(r, true, slots,
					 f->cfg->connect_timeout_ms, 0);
		if (!rc)
			return plan_replica(f, r);
		if (!RS_ERRC_TRANSIENT(rc) || attempt >= f->cfg->retries ||
		    send_stop_requested)
			return rc;
		rs_info("retrying in %u ms (%u of %u)", backoff, attempt + 1,
			f->cfg->retries);
		send_stats_sleep_ms(backoff);
		backoff = send_backoff_next(backoff);
	}
}

/* The window for every receiver at once (stream/window_plan.h): batches no
 * larger than any staging slot in use, no more in flight than any allows,
 * the log as long as the shortest. */
static int size_window(struct fleet *f, uint64_t input_size)
{
	uint32_t cap = UINT32_MAX, credits = SHIP_DEPTH_MAX;
	uint64_t end = UINT64_MAX;
	for (unsigned i = 0; i < f->n; i++) {
		const struct replica *r = f->replicas[i];
		uint32_t slot = replica_batch_cap(r);
		uint16_t allowed = replica_grant(r)->credits;
		if (slot < cap)
			cap = slot;
		if (allowed < credits)
			credits = allowed;
		if (replica_log_end(r) < end)
			end = replica_log_end(r);
	}
	struct window_plan plan = window_plan_make(
	    f->cfg->batch_size, cap, f->cfg->depth, credits, input_size);
	uint32_t batch_max = plan.batch_max, depth = plan.depth;
	uint64_t used = replica_granted_end(f->replicas[0]);
	unsigned k = f->cfg->quorum ? f->cfg->quorum : f->n;
	int rc = window_connected(f->w, f->n, k, (uint16_t)depth, batch_max,
				  used, end);
	if (rc) {
		rs_err("cannot allocate %zu bytes of batch buffers",
		       (size_t)depth * batch_max);
		return rc;
	}
	rs_verbose("method %s, %u batches of %u bytes in flight, remote log "
		   "at %llu of %llu bytes, %u of %u replicas must confirm",
		   rs_method_name(replica_method(f->replicas[0])), depth,
		   batch_max, (unsigned long long)used, (unsigned long long)end,
		   k, f->n);
	return 0;
}

/* --resume checked the log first: it must not have changed since. */
static int check_expected(const struct fleet *f)
{
	uint64_t used = replica_granted_end(f->replicas[0]);
	if (!f->cfg->expect_offset || used == f->cfg->expected_used)
		return 0;
	rs_err("the remote log changed since it was checked (it holds %llu "
	       "bytes, not %llu); run --resume again",
	       (unsigned long long)used,
	       (unsigned long long)f->cfg->expected_used);
	return RS_E_DIVERGED;
}

/* Where the replacement goes on r: a refusal names the room there is. */
static int place_replacement(struct replica *r, uint64_t input_size)
{
	struct rs_msg reply;
	int rc = replica_replace(r, false, input_size, &reply);
	if (rc) {
		rs_err("%s: the connection failed while placing the "
		       "replacement; the log keeps its content",
		       replica_label(r));
		return rc;
	}
	if (reply.status == RS_MSG_OK)
		return 0;
	if (reply.status == RS_MSG_NO_ROOM)
		rs_err("%s: cannot replace the log: its pool has room for "
		       "%llu bytes beside the content it keeps until the "
		       "replacement is whole%s%llu bytes; give the log an "
		       "archive (archive = DIR), or replace it in place with "
		       "--truncate=in-place (its content is lost if the run "
		       "fails)",
		       replica_label(r), (unsigned long long)reply.length,
		       input_size ? ", and the input is " : "",
		       (unsigned long long)input_size);
	else
		rs_err("%s: cannot replace the log: %s; the log keeps its "
		       "content",
		       replica_label(r), rs_msg_status_str(reply.status));
	return RS_E_FULL;
}

int fleet_start(struct fleet *f, uint64_t input_size)
{
	int rc = 0;
	for (unsigned i = 0; i < f->n && !rc; i++)
		rc = connect_first(f, f->replicas[i]);
	for (unsigned i = 0; i < f->n && !rc && fleet_replacing(f); i++)
		rc = place_replacement(f->replicas[i], input_size);
	if (!rc)
		rc = check_expected(f);
	if (!rc)
		rc = agreement_check(f->replicas, f->n, f->cfg);
	if (!rc)
		rc = size_window(f, input_size);
	for (unsigned i = 0; i < f->n && !rc; i++) {
		rc = replica_register(f->replicas[i], f->w);
		if (!rc)
			rc = replica_started(f->replicas[i]);
		/* Lost while asking for its first window key: as a link lost
		 * later, taken up again with --retry. */
		if (RS_ERRC_TRANSIENT(rc)) {
			fleet_lose(f, f->replicas[i], send_stats_now_ns());
			rc = 0;
		}
	}
	return rc;
}

/* ---- the end ---- */

int fleet_switch(struct fleet *f)
{
	const struct quorum *q = window_quorum(f->w);
	uint64_t end = quorum_committed(q);
	unsigned switched = 0;
	int failure = 0;
	for (unsigned i = 0; i < f->n; i++) {
		struct replica *r = f->replicas[i];
		if (quorum_replica_state(q, i) == REPLICA_DROPPED) {
			rs_err("%s keeps its previous content: it did not take "
			       "the whole replacement",
			       replica_label(r));
			continue;
		}
		struct rs_msg reply = {0};
		int rc =
		    replica_connected(r) && quorum_replica_offset(q, i) == end
			? replica_switch(r, end, &reply)
			: RS_E_LOST;
		if (!rc && reply.status == RS_MSG_OK) {
			switched++;
			continue;
		}
		if (rc && replica_connected(r))
			rs_err("%s did not confirm the switch (the connection "
			       "was lost or it did not answer): it holds the "
			       "whole replacement or its whole previous "
			       "content (rpma-send --verify tells which)",
			       replica_label(r));
		else
			rs_err("%s keeps its previous content: %s",
			       replica_label(r),
			       rc ? "the replacement could not be switched "
				    "in (the connection is lost)"
				  : rs_msg_status_str(reply.status));
		if (!failure)
			failure = rc ? rc : RS_E_LOST;
	}
	if (!failure)
		return switched < f->n ? RS_E_DEGRADED : 0;
	return switched ? RS_E_DEGRADED : failure;
}

int fleet_finish(const struct fleet *f, int rc)
{
	const struct send_window *w = f->w;
	if (!rc && window_error(w) == WINDOW_TOO_FEW)
		rc = f->failure ? f->failure : RS_E_LOST;
	const struct quorum *q = window_quorum(w);
	uint64_t committed = quorum_committed(q);
	unsigned holders = quorum_count_at(q, committed);
	size_t ring_len;
	if (f->n == 1 || !window_ring(w, &ring_len) || (!rc && holders == f->n))
		return rc;
	for (unsigned i = 0; i < f->n; i++) {
		if (!rc && quorum_replica_offset(q, i) >= committed)
			continue;
		rs_err("%s stopped at %llu input bytes (%s)",
		       replica_label(f->replicas[i]),
		       (unsigned long long)window_replica_input(w, i),
		       quorum_state_name(quorum_replica_state(q, i)));
	}
	if (rc)
		return rc;
	rs_err("committed %llu input bytes on %u of %u replicas",
	       (unsigned long long)window_committed_input(w), holders, f->n);
	return RS_E_DEGRADED;
}

void fleet_progress(const struct fleet *f, char *buf, size_t len)
{
	size_t at = 0, ring_len;
	buf[0] = 0;
	if (f->n < 2 || !window_ring(f->w, &ring_len))
		return;
	for (unsigned i = 0; i < f->n && at < len; i++) {
		char size[32];
		enum replica_state st =
		    quorum_replica_state(window_quorum(f->w), i);
		int n =
		    snprintf(buf + at, len - at, "%s%s %s%s%s", i ? ", " : "; ",
			     replica_label(f->replicas[i]),
			     rs_size_format(window_replica_input(f->w, i), size,
					    sizeof(size)),
			     st == REPLICA_ACTIVE ? "" : " ",
			     st == REPLICA_ACTIVE ? "" : quorum_state_name(st));
		if (n < 0)
			break;
		at += (size_t)n;
	}
}

void fleet_report(const struct fleet *f, struct ship_result *result)
{
	const struct send_window *w = f->w;
	const struct quorum *q = window_quorum(w);
	size_t ring_len;
	result->method = replica_method(f->replicas[0]);
	if (!window_ring(w, &ring_len))
		return;
	result->committed = window_committed_input(w);
	result->first_offset = window_first_offset(w);
	result->log_used = quorum_committed(q);
	result->log_size = window_end_offset(w);
	result->nreplicas = f->n;
	for (unsigned i = 0; i < f->n; i++) {
		const struct replica *r = f->replicas[i];
		struct ship_replica_result *out = &result->replicas[i];
		snprintf(out->label, sizeof(out->label), "%s",
			 replica_label(r));
		out->method = replica_method(r);
		out->state = quorum_state_name(quorum_replica_state(q, i));
		out->committed = window_replica_input(w, i);
		out->lag = window_next_offset(w) - quorum_replica_offset(q, i);
		out->stats = *replica_stats(r);
	}
}
