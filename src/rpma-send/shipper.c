#include "shipper.h"

#include "exit_code.h"
#include "link.h"
#include "log.h"
#include "message.h"
#include "mr.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One batch slot of the sender's ring. Its bytes stay until the batch is
 * committed, so after a reconnect the uncommitted tail can be sent again. */
struct batch {
	uint8_t *data;
	uint32_t seq;
	uint64_t offset; /* where it goes in the remote log */
	uint32_t length;
	uint64_t posted_ns; /* for the commit latency */
};

struct shipper {
	const struct ship_config *cfg;
	struct send_link link;
	bool linked;
	enum rs_method method;
	uint32_t batch_max;
	uint16_t depth;
	uint8_t pool_uuid[16]; /* the pool we started on */

	uint8_t *ring;
	size_t ring_len;
	struct ibv_mr *ring_mr;
	struct batch *batches;

	uint32_t next_seq;   /* sequence number of the next batch */
	uint32_t oldest_seq; /* oldest batch not yet committed */
	uint64_t next_offset;
	uint64_t committed_offset;
	uint64_t first_offset;
	struct send_stats *stats;
	struct send_progress progress;
};

#define SHIP_WAIT_MS 1000
#define SHIP_STALL_MS 30000 /* no confirmation this long: link lost */
#define SHIP_BACKOFF_FIRST_MS 100
#define SHIP_BACKOFF_MAX_MS 5000

static unsigned inflight(const struct shipper *s)
{
	return s->next_seq - s->oldest_seq;
}

static struct batch *batch_of(struct shipper *s, uint32_t seq)
{
	return &s->batches[seq % s->depth];
}

static struct link_slot *slot_of(struct shipper *s, uint32_t seq)
{
	return &s->link.slots[seq % s->depth];
}

static uint64_t committed_input(const struct shipper *s)
{
	return s->committed_offset - s->first_offset;
}

/* First connection: pick the method and size the ring from the grant. */
static int plan(struct shipper *s)
{
	const struct rs_accept_info *info = &s->link.info;
	char why[256];
	if (rs_method_choose(info->methods, s->cfg->method, &s->method, why,
			     sizeof(why))) {
		rs_err("%s", why);
		return RS_EXIT_REFUSED;
	}
	if (s->cfg->expect_offset &&
	    info->write_offset_value - info->start_offset !=
		s->cfg->expected_used) {
		rs_err("the remote log changed since it was checked (it holds "
		       "%llu bytes, not %llu); run --resume again",
		       (unsigned long long)(info->write_offset_value -
					    info->start_offset),
		       (unsigned long long)s->cfg->expected_used);
		return RS_EXIT_NOT_PREFIX;
	}
	s->depth =
	    s->cfg->depth < info->credits ? s->cfg->depth : info->credits;
	s->batch_max = s->cfg->batch_size;
	if (s->method == RS_METHOD_STAGED &&
	    s->batch_max > info->staging_slot_size)
		s->batch_max = info->staging_slot_size;

	s->ring_len = (size_t)s->depth * s->batch_max;
	if (posix_memalign((void **)&s->ring, 4096, s->ring_len)) {
		rs_err("cannot allocate %zu bytes of batch buffers",
		       s->ring_len);
		s->ring = 0;
		return RS_EXIT_USAGE;
	}
	s->batches = calloc(s->depth, sizeof(*s->batches));
	if (!s->batches)
		return RS_EXIT_USAGE;
	for (uint16_t i = 0; i < s->depth; i++)
		s->batches[i].data = s->ring + (size_t)i * s->batch_max;

	memcpy(s->pool_uuid, info->pool_uuid, sizeof(s->pool_uuid));
	s->next_offset = info->write_offset_value;
	s->committed_offset = s->next_offset;
	s->first_offset = s->next_offset;
	rs_verbose("method %s, %u batches of %u bytes in flight, remote log "
		   "at %llu of %llu bytes",
		   rs_method_name(s->method), s->depth, s->batch_max,
		   (unsigned long long)(s->next_offset - info->start_offset),
		   (unsigned long long)(info->end_offset - info->start_offset));
	return RS_EXIT_OK;
}

/* A later connection must still fit what is in flight. */
static int check_still_compatible(struct shipper *s)
{
	const struct rs_accept_info *info = &s->link.info;
	const char *why = 0;
	if (memcmp(info->pool_uuid, s->pool_uuid, sizeof(s->pool_uuid)))
		why = "it now serves a different pool";
	else if (!(info->methods & RS_METHOD_BIT(s->method)))
		why = "it no longer offers the method in use";
	else if (info->credits < s->depth)
		why = "it allows fewer batches in flight";
	else if (s->method == RS_METHOD_STAGED &&
		 info->staging_slot_size < s->batch_max)
		why = "its staging slots are smaller";
	else if (info->write_offset_value < s->committed_offset ||
		 info->write_offset_value > s->next_offset)
		why = "its log was changed by someone else";
	if (why) {
		rs_err("cannot resume on %s after reconnecting: %s; %llu input "
		       "bytes were committed",
		       s->cfg->remote.host, why,
		       (unsigned long long)committed_input(s));
		return RS_EXIT_REFUSED;
	}
	return RS_EXIT_OK;
}

static int link_up(struct shipper *s, bool first, bool *busy)
{
	struct link_request r = {
	    .remote = &s->cfg->remote,
	    .timeout_ms = s->cfg->connect_timeout_ms,
	    .req = {.flags =
			first && s->cfg->truncate ? RS_CONNECT_TRUNCATE : 0,
		    .method = (uint8_t)(first ? s->cfg->method : s->method)},
	    .slots = first ? s->cfg->depth : s->depth,
	    .key = s->cfg->auth_key,
	    .busy_poll = s->cfg->busy_poll,
	};
	int rc = send_link_open(&s->link, &r, busy);
	s->linked = true;
	if (!rc)
		rc = first ? plan(s) : check_still_compatible(s);
	if (rc)
		return rc;
	int err = rs_mr_reg(&s->link.peer, s->ring, s->ring_len,
			    IBV_ACCESS_LOCAL_WRITE, &s->ring_mr);
	if (err) {
		rs_err("cannot register %zu bytes of batch buffers: %s",
		       s->ring_len, rs_mr_reg_advice(err));
		return RS_EXIT_USAGE;
	}
	return RS_EXIT_OK;
}

static void link_down(struct shipper *s)
{
	rs_mr_dereg(&s->ring_mr);
	if (s->linked)
		send_link_close(&s->link);
	s->linked = false;
}

/* Sends a commit request (GPSPM and staged) for b. */
static int post_commit_request(struct shipper *s, const struct batch *b,
			       uint64_t ring_offset)
{
	struct link_slot *slot = slot_of(s, b->seq);
	struct rs_msg msg = {
	    .type = s->method == RS_METHOD_STAGED ? RS_MSG_STAGED_COMMIT
						  : RS_MSG_COMMIT,
	    .seq = b->seq,
	    .offset = b->offset,
	    .length = b->length,
	    .ring_offset = ring_offset,
	};
	rs_msg_encode(&msg, slot->request, sizeof(slot->request));
	/* The reply says the request arrived; one send in `depth` is signaled
	 * only to reclaim send-queue entries. */
	unsigned flags =
	    b->seq % s->depth == s->depth - 1u ? IBV_SEND_SIGNALED : 0;
	return rs_conn_post_send(&s->link.conn, slot->request, RS_MSG_SIZE,
				 s->link.slots_mr->lkey, UINT64_MAX, flags);
}

/* APM: the read after the data write makes it persistent (DDIO off); the
 * fenced offset write waits for that read; the last read makes the offset
 * persistent and its completion is the commit. */
static int post_apm_commit(struct shipper *s, const struct batch *b)
{
	struct link_slot *slot = slot_of(s, b->seq);
	const struct rs_mr_desc *word = &s->link.info.write_offset;
	struct rs_conn *c = &s->link.conn;
	uint32_t lkey = s->link.slots_mr->lkey;
	slot->new_offset = htole64(b->offset + b->length);
	if (rs_conn_post_read(c, &slot->flush_read, 8, lkey, word->addr,
			      word->rkey, UINT64_MAX, 0))
		return -1;
	if (rs_conn_post_write(c, &slot->new_offset, 8, lkey, word->addr,
			       word->rkey, UINT64_MAX, IBV_SEND_FENCE))
		return -1;
	return rs_conn_post_read(c, &slot->flush_read, 8, lkey, word->addr,
				 word->rkey, b->seq, IBV_SEND_SIGNALED);
}

static int post_batch(struct shipper *s, struct batch *b)
{
	const struct rs_accept_info *info = &s->link.info;
	uint64_t remote, ring_offset = 0;
	uint32_t rkey;
	if (s->method == RS_METHOD_STAGED) {
		ring_offset =
		    (uint64_t)(b->seq % s->depth) * info->staging_slot_size;
		remote = info->staging.addr + ring_offset;
		rkey = info->staging.rkey;
	} else {
		remote = info->data.addr + (b->offset - info->start_offset);
		rkey = info->data.rkey;
	}
	b->posted_ns = send_stats_now_ns();
	if (rs_conn_post_write(&s->link.conn, b->data, b->length,
			       s->ring_mr->lkey, remote, rkey, UINT64_MAX, 0))
		return -1;
	if (s->method == RS_METHOD_APM)
		return post_apm_commit(s, b);
	return post_commit_request(s, b, ring_offset);
}

/* Marks the oldest batch committed once the remote log covers it. */
static void commit_oldest(struct shipper *s)
{
	struct batch *b = batch_of(s, s->oldest_seq);
	s->committed_offset = b->offset + b->length;
	s->oldest_seq++;
	send_stats_commit(s->stats, b->length,
			  send_stats_now_ns() - b->posted_ns);
	send_progress_update(&s->progress, s->stats);
}

/* A confirmation must be for the oldest batch, covering exactly it. */
static int confirm(struct shipper *s, uint32_t seq, uint64_t remote_offset)
{
	struct batch *b = batch_of(s, s->oldest_seq);
	if (inflight(s) == 0 || seq != s->oldest_seq ||
	    remote_offset != b->offset + b->length) {
		rs_err("the receiver confirmed a commit out of order (batch "
		       "%u, offset %llu); stopping",
		       seq, (unsigned long long)remote_offset);
		return RS_EXIT_REFUSED;
	}
	commit_oldest(s);
	return RS_EXIT_OK;
}

/* Handles one completion. Returns 0, or an exit code on failure. */
static int on_completion(struct shipper *s, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS) {
		rs_verbose("completion error: %s",
			   ibv_wc_status_str(wc->status));
		return RS_EXIT_CONNECT;
	}
	if (wc->opcode == IBV_WC_RDMA_READ && s->method == RS_METHOD_APM) {
		struct batch *b = batch_of(s, s->oldest_seq);
		return confirm(s, (uint32_t)wc->wr_id, b->offset + b->length);
	}
	if (wc->opcode != IBV_WC_RECV)
		return 0;

	uint16_t i = (uint16_t)wc->wr_id;
	struct rs_msg reply;
	const char *why =
	    rs_msg_decode(s->link.slots[i].reply, wc->byte_len, &reply);
	if (!why && reply.type != RS_MSG_COMMIT_DONE)
		why = "unexpected message type";
	if (why) {
		rs_err("the receiver sent a malformed reply (%s)", why);
		return RS_EXIT_REFUSED;
	}
	if (reply.status != RS_MSG_OK) {
		rs_err("the receiver refused batch %u: %s", reply.seq,
		       rs_msg_status_str(reply.status));
		return RS_EXIT_REFUSED;
	}
	int rc = confirm(s, reply.seq, reply.offset);
	if (rc)
		return rc;
	if (send_link_repost(&s->link, i))
		return RS_EXIT_CONNECT;
	return RS_EXIT_OK;
}

/* Waits for completions until fewer than `below` batches are in flight. */
static int drain(struct shipper *s, unsigned below)
{
	unsigned waited_ms = 0;
	while (inflight(s) >= below && inflight(s) > 0) {
		struct ibv_wc wc;
		enum rs_wait_result r =
		    rs_conn_next_completion(&s->link.conn, &wc, SHIP_WAIT_MS);
		if (r == RS_WAIT_TIMEOUT) {
			/* A device that never reports an error must not
			 * hang us: a silent link counts as lost. */
			waited_ms += SHIP_WAIT_MS;
			if (waited_ms >= SHIP_STALL_MS) {
				rs_verbose("no commit confirmed for %u s",
					   waited_ms / 1000);
				return RS_EXIT_CONNECT;
			}
			continue;
		}
		waited_ms = 0;
		if (r != RS_WAIT_COMPLETION)
			return RS_EXIT_CONNECT;
		int rc = on_completion(s, &wc);
		if (rc)
			return rc;
	}
	return RS_EXIT_OK;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, 0);
}

/* Connects, retrying a lost or busy receiver up to --retry times with
 * doubling back-off. */
static int connect_with_retry(struct shipper *s, bool first)
{
	unsigned backoff = SHIP_BACKOFF_FIRST_MS;
	for (unsigned attempt = 0;; attempt++) {
		bool busy;
		int rc = link_up(s, first, &busy);
		bool transient = rc == RS_EXIT_CONNECT || busy;
		if (!rc || !transient || attempt >= s->cfg->retries ||
		    send_stop_requested)
			return rc;
		link_down(s);
		rs_info("retrying in %u ms (%u of %u)", backoff, attempt + 1,
			s->cfg->retries);
		sleep_ms(backoff);
		backoff = backoff * 2 > SHIP_BACKOFF_MAX_MS
			      ? SHIP_BACKOFF_MAX_MS
			      : backoff * 2;
	}
}

/* After a reconnect: batches the receiver committed before the loss count
 * as done; the rest are sent again, in order, at the same offsets. */
static int resume(struct shipper *s)
{
	uint64_t remote = s->link.info.write_offset_value;
	while (inflight(s) > 0 &&
	       remote >= batch_of(s, s->oldest_seq)->offset +
			     batch_of(s, s->oldest_seq)->length)
		commit_oldest(s);
	if (remote != s->committed_offset) {
		rs_err("cannot resume: the remote log ends inside a batch "
		       "(offset %llu); %llu input bytes were committed",
		       (unsigned long long)remote,
		       (unsigned long long)committed_input(s));
		return RS_EXIT_REFUSED;
	}
	uint64_t again = s->next_offset - s->committed_offset;
	rs_info("reconnected to %s at %llu committed input bytes; sending %llu "
		"uncommitted bytes again",
		s->cfg->remote.host, (unsigned long long)committed_input(s),
		(unsigned long long)again);
	for (uint32_t seq = s->oldest_seq; seq != s->next_seq; seq++) {
		if (post_batch(s, batch_of(s, seq)))
			return RS_EXIT_CONNECT;
	}
	return RS_EXIT_OK;
}

/* Turns a lost connection into a reconnect when --retry allows it. */
static int recover(struct shipper *s, int rc)
{
	if (rc != RS_EXIT_CONNECT)
		return rc;
	link_down(s);
	if (s->cfg->retries > 0 && !send_stop_requested) {
		rs_info("connection to %s lost after committing %llu input "
			"bytes; reconnecting",
			s->cfg->remote.host,
			(unsigned long long)committed_input(s));
		rc = connect_with_retry(s, false);
		if (!rc)
			rc = resume(s);
		if (!rc)
			return RS_EXIT_OK;
	}
	rs_err("connection to %s lost after committing %llu input bytes",
	       s->cfg->remote.host, (unsigned long long)committed_input(s));
	return rc ? rc : RS_EXIT_CONNECT;
}

/* True when the input has at least one more byte: the log is then full. */
static bool input_has_more(struct send_input *in)
{
	uint8_t probe;
	return send_input_fill(in, &probe, 1, 0) > 0;
}

static int log_full(struct shipper *s)
{
	rs_err("remote log full: committed %llu input bytes; the rest did not "
	       "fit (rewind it with --truncate or use a larger pool)",
	       (unsigned long long)committed_input(s));
	return RS_EXIT_LOG_FULL;
}

/* One step of the stream: frees a slot, fills it and posts it. */
static int stream_step(struct shipper *s, struct send_input *in, bool *done)
{
	int rc = drain(s, s->depth);
	if (rc)
		return rc;
	if (in->eof || send_stop_requested) {
		*done = true;
		return RS_EXIT_OK;
	}
	uint64_t room = s->link.info.end_offset - s->next_offset;
	uint32_t cap = room < s->batch_max ? (uint32_t)room : s->batch_max;
	if (cap == 0) {
		*done = true;
		if (!input_has_more(in))
			return RS_EXIT_OK;
		rc = drain(s, 1);
		return rc ? rc : log_full(s);
	}
	struct batch *b = batch_of(s, s->next_seq);
	ssize_t n =
	    send_input_fill(in, b->data, cap, s->cfg->flush_interval_ms);
	if (n < 0) {
		rs_err("cannot read %s: %s", in->name, strerror(errno));
		*done = true;
		rc = drain(s, 1);
		return rc ? rc : RS_EXIT_USAGE;
	}
	if (n == 0)
		return RS_EXIT_OK;
	b->seq = s->next_seq;
	b->offset = s->next_offset;
	b->length = (uint32_t)n;
	/* Counted in flight before posting, so a failed post is resent. */
	s->next_seq++;
	s->next_offset += (uint64_t)n;
	return post_batch(s, b) ? RS_EXIT_CONNECT : RS_EXIT_OK;
}

static int stream(struct shipper *s, struct send_input *in)
{
	bool done = false;
	while (!done) {
		int rc = recover(s, stream_step(s, in, &done));
		if (rc)
			return rc;
	}
	for (;;) {
		int rc = recover(s, drain(s, 1));
		if (rc || inflight(s) == 0)
			return rc;
	}
}

int ship_run(const struct ship_config *cfg, struct send_input *in,
	     struct ship_result *result)
{
	struct shipper s;
	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	s.stats = &result->stats;
	send_stats_start(s.stats);
	send_progress_init(&s.progress, cfg->progress, cfg->progress_forced);
	int rc = connect_with_retry(&s, true);
	if (!rc)
		rc = stream(&s, in);
	send_progress_finish(&s.progress, s.stats);
	result->method = s.method;
	result->committed = committed_input(&s);
	result->first_offset = s.first_offset;
	result->log_used = s.committed_offset - s.link.info.start_offset;
	result->log_size = s.link.info.end_offset - s.link.info.start_offset;
	link_down(&s);
	free(s.ring);
	free(s.batches);
	return rc;
}
