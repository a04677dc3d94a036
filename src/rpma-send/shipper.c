#include "shipper.h"

#include "conn.h"
#include "descriptor.h"
#include "exit_code.h"
#include "log.h"
#include "message.h"
#include "mr.h"
#include "peer.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One batch slot of the sender's registered ring. */
struct batch {
	uint8_t *data;
	uint32_t seq;
	uint64_t offset; /* where it goes in the remote log */
	uint32_t length;
	uint64_t posted_ns; /* for the commit latency */
};

/* Per-slot control buffers: the request sent, the reply received and, for
 * APM, the new write offset written and the 8 bytes read back. */
struct batch_ctl {
	uint8_t request[RS_MSG_SIZE];
	uint8_t reply[RS_MSG_SIZE];
	uint64_t new_offset;
	uint64_t flush_read;
};

struct shipper {
	const struct ship_config *cfg;
	struct rs_conn conn;
	struct rs_peer peer;
	struct rs_accept_info info;
	enum rs_method method;
	uint32_t batch_max;
	uint16_t depth;

	uint8_t *ring;
	struct ibv_mr *ring_mr;
	struct batch_ctl *ctl;
	struct ibv_mr *ctl_mr;
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

static unsigned inflight(const struct shipper *s)
{
	return s->next_seq - s->oldest_seq;
}

static struct batch *batch_of(struct shipper *s, uint32_t seq)
{
	return &s->batches[seq % s->depth];
}

static struct batch_ctl *ctl_of(struct shipper *s, uint32_t seq)
{
	return &s->ctl[seq % s->depth];
}

/* Connects and decodes the receiver's grant. */
static int ship_connect(struct shipper *s)
{
	const struct ship_config *cfg = s->cfg;
	char err[512];
	int ret = rs_conn_resolve(&s->conn, &cfg->remote,
				  cfg->connect_timeout_ms, err, sizeof(err));
	if (ret) {
		rs_err("%s", err);
		return RS_EXIT_CONNECT;
	}
	if (rs_peer_new(&s->peer, s->conn.id->verbs)) {
		rs_err("cannot allocate a protection domain: %s",
		       strerror(errno));
		return RS_EXIT_CONNECT;
	}
	/* Up to four work requests per batch (APM), one receive each. */
	uint16_t max_depth = cfg->depth;
	if (rs_conn_create_qp(&s->conn, s->peer.pd, 4u * max_depth + 4,
			      max_depth, err, sizeof(err))) {
		rs_err("%s", err);
		return RS_EXIT_CONNECT;
	}

	s->ctl = calloc(max_depth, sizeof(*s->ctl));
	if (!s->ctl)
		return RS_EXIT_CONNECT;
	int rc = rs_mr_reg(&s->peer, s->ctl, max_depth * sizeof(*s->ctl),
			   IBV_ACCESS_LOCAL_WRITE, &s->ctl_mr);
	if (rc) {
		rs_err("cannot register control buffers: %s",
		       rs_mr_reg_advice(rc));
		return RS_EXIT_CONNECT;
	}
	/* Replies may arrive as soon as we are connected: post first. */
	for (uint16_t i = 0; i < max_depth; i++) {
		if (rs_conn_post_recv(&s->conn, s->ctl[i].reply, RS_MSG_SIZE,
				      s->ctl_mr->lkey, i)) {
			rs_err("cannot post a receive: %s", strerror(errno));
			return RS_EXIT_CONNECT;
		}
	}

	struct rs_connect_req req = {
	    .flags = cfg->truncate ? RS_CONNECT_TRUNCATE : 0,
	    .method = (uint8_t)cfg->method,
	};
	uint8_t buf[RS_CONNECT_PRIVATE_MAX];
	size_t len = rs_connect_req_encode(&req, buf, sizeof(buf));
	struct rs_private_data reply;
	ret =
	    rs_conn_connect(&s->conn, buf, (uint8_t)len,
			    cfg->connect_timeout_ms, &reply, err, sizeof(err));
	if (ret == RS_CONN_REJECTED) {
		struct rs_reject_info rej;
		if (rs_reject_decode(reply.bytes, reply.len, &rej) == 0) {
			enum rs_method unused;
			if (rej.reason == RS_REJECT_METHOD &&
			    rs_method_choose(rej.methods, cfg->method, &unused,
					     err, sizeof(err)))
				rs_err("%s:%s refused the connection: %s",
				       cfg->remote.host, cfg->remote.port, err);
			else
				rs_err("%s:%s refused the connection: %s",
				       cfg->remote.host, cfg->remote.port,
				       rs_reject_reason_str(rej.reason));
			return RS_EXIT_REFUSED;
		}
		rs_err("%s:%s refused the connection; is rpma-recv running on "
		       "that address and port?",
		       cfg->remote.host, cfg->remote.port);
		return RS_EXIT_CONNECT;
	}
	if (ret) {
		rs_err("%s:%s: %s", cfg->remote.host, cfg->remote.port, err);
		return RS_EXIT_CONNECT;
	}
	const char *why =
	    rs_accept_info_decode(reply.bytes, reply.len, &s->info);
	if (why) {
		rs_err("%s:%s sent an unusable description of its pool (%s)",
		       cfg->remote.host, cfg->remote.port, why);
		return RS_EXIT_REFUSED;
	}
	return RS_EXIT_OK;
}

/* Picks the method and sizes the batch ring from the grant. */
static int ship_negotiate(struct shipper *s)
{
	char why[256];
	if (rs_method_choose(s->info.methods, s->cfg->method, &s->method, why,
			     sizeof(why))) {
		rs_err("%s", why);
		return RS_EXIT_REFUSED;
	}
	s->depth = s->cfg->depth;
	if (s->depth > s->info.credits)
		s->depth = s->info.credits;
	s->batch_max = s->cfg->batch_size;
	if (s->method == RS_METHOD_STAGED &&
	    s->batch_max > s->info.staging_slot_size)
		s->batch_max = s->info.staging_slot_size;

	size_t ring_len = (size_t)s->depth * s->batch_max;
	if (posix_memalign((void **)&s->ring, 4096, ring_len)) {
		rs_err("cannot allocate %zu bytes of batch buffers", ring_len);
		s->ring = 0;
		return RS_EXIT_USAGE;
	}
	int rc = rs_mr_reg(&s->peer, s->ring, ring_len, IBV_ACCESS_LOCAL_WRITE,
			   &s->ring_mr);
	if (rc) {
		rs_err("cannot register %zu bytes of batch buffers: %s",
		       ring_len, rs_mr_reg_advice(rc));
		return RS_EXIT_USAGE;
	}
	s->batches = calloc(s->depth, sizeof(*s->batches));
	if (!s->batches)
		return RS_EXIT_USAGE;
	for (uint16_t i = 0; i < s->depth; i++)
		s->batches[i].data = s->ring + (size_t)i * s->batch_max;

	s->next_offset = s->info.write_offset_value;
	s->committed_offset = s->next_offset;
	s->first_offset = s->next_offset;
	rs_verbose(
	    "method %s, %u batches of %u bytes in flight, remote log "
	    "at %llu of %llu bytes",
	    rs_method_name(s->method), s->depth, s->batch_max,
	    (unsigned long long)(s->next_offset - s->info.start_offset),
	    (unsigned long long)(s->info.end_offset - s->info.start_offset));
	return RS_EXIT_OK;
}

/* Sends a commit request (GPSPM and staged) for b. */
static int post_commit_request(struct shipper *s, const struct batch *b,
			       uint64_t ring_offset)
{
	struct batch_ctl *ctl = ctl_of(s, b->seq);
	struct rs_msg msg = {
	    .type = s->method == RS_METHOD_STAGED ? RS_MSG_STAGED_COMMIT
						  : RS_MSG_COMMIT,
	    .seq = b->seq,
	    .offset = b->offset,
	    .length = b->length,
	    .ring_offset = ring_offset,
	};
	rs_msg_encode(&msg, ctl->request, sizeof(ctl->request));
	return rs_conn_post_send(&s->conn, ctl->request, RS_MSG_SIZE,
				 s->ctl_mr->lkey, UINT64_MAX,
				 IBV_SEND_SIGNALED);
}

/* APM: the read after the data write makes it persistent (DDIO off); the
 * fenced offset write waits for that read; the last read makes the offset
 * persistent and its completion is the commit. */
static int post_apm_commit(struct shipper *s, const struct batch *b)
{
	struct batch_ctl *ctl = ctl_of(s, b->seq);
	const struct rs_mr_desc *word = &s->info.write_offset;
	uint32_t lkey = s->ctl_mr->lkey;
	ctl->new_offset = htole64(b->offset + b->length);
	if (rs_conn_post_read(&s->conn, &ctl->flush_read, 8, lkey, word->addr,
			      word->rkey, UINT64_MAX, 0))
		return -1;
	if (rs_conn_post_write(&s->conn, &ctl->new_offset, 8, lkey, word->addr,
			       word->rkey, UINT64_MAX, IBV_SEND_FENCE))
		return -1;
	return rs_conn_post_read(&s->conn, &ctl->flush_read, 8, lkey,
				 word->addr, word->rkey, b->seq,
				 IBV_SEND_SIGNALED | IBV_SEND_FENCE);
}

static int post_batch(struct shipper *s, struct batch *b)
{
	uint64_t remote, ring_offset = 0;
	uint32_t rkey;
	if (s->method == RS_METHOD_STAGED) {
		ring_offset =
		    (uint64_t)(b->seq % s->depth) * s->info.staging_slot_size;
		remote = s->info.staging.addr + ring_offset;
		rkey = s->info.staging.rkey;
	} else {
		remote = s->info.data.addr + (b->offset - s->info.start_offset);
		rkey = s->info.data.rkey;
	}
	if (rs_conn_post_write(&s->conn, b->data, b->length, s->ring_mr->lkey,
			       remote, rkey, UINT64_MAX, 0))
		return -1;
	if (s->method == RS_METHOD_APM)
		return post_apm_commit(s, b);
	return post_commit_request(s, b, ring_offset);
}

/* Marks the oldest batch committed once its confirmation arrives. */
static int batch_committed(struct shipper *s, uint32_t seq,
			   uint64_t remote_offset)
{
	struct batch *b = batch_of(s, s->oldest_seq);
	if (inflight(s) == 0 || seq != s->oldest_seq ||
	    remote_offset != b->offset + b->length) {
		rs_err("the receiver confirmed a commit out of order (batch "
		       "%u, offset %llu); stopping",
		       seq, (unsigned long long)remote_offset);
		return -1;
	}
	s->committed_offset = remote_offset;
	s->oldest_seq++;
	send_stats_commit(s->stats, b->length,
			  send_stats_now_ns() - b->posted_ns);
	send_progress_update(&s->progress, s->stats);
	return 0;
}

/* Says how much is safe, so the user knows what to send again. */
static void report_lost(const struct shipper *s, const char *why)
{
	rs_err("connection to %s lost (%s) after committing %llu input bytes",
	       s->cfg->remote.host, why,
	       (unsigned long long)(s->committed_offset - s->first_offset));
}

/* Handles one completion. Returns 0, or an exit code on failure. */
static int on_completion(struct shipper *s, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS) {
		report_lost(s, ibv_wc_status_str(wc->status));
		return RS_EXIT_CONNECT;
	}
	if (wc->opcode == IBV_WC_RDMA_READ && s->method == RS_METHOD_APM)
		return batch_committed(s, (uint32_t)wc->wr_id,
				       batch_of(s, s->oldest_seq)->offset +
					   batch_of(s, s->oldest_seq)->length)
			   ? RS_EXIT_CONNECT
			   : 0;
	if (wc->opcode != IBV_WC_RECV)
		return 0;

	uint16_t slot = (uint16_t)wc->wr_id;
	struct rs_msg reply;
	const char *why =
	    rs_msg_decode(s->ctl[slot].reply, wc->byte_len, &reply);
	if (!why && reply.type != RS_MSG_COMMIT_DONE)
		why = "unexpected message type";
	if (why) {
		rs_err("the receiver sent a malformed reply (%s)", why);
		return RS_EXIT_CONNECT;
	}
	if (reply.status != RS_MSG_OK) {
		rs_err("the receiver refused batch %u: %s", reply.seq,
		       rs_msg_status_str(reply.status));
		return RS_EXIT_REFUSED;
	}
	if (batch_committed(s, reply.seq, reply.offset))
		return RS_EXIT_CONNECT;
	if (rs_conn_post_recv(&s->conn, s->ctl[slot].reply, RS_MSG_SIZE,
			      s->ctl_mr->lkey, slot)) {
		rs_err("cannot post a receive: %s", strerror(errno));
		return RS_EXIT_CONNECT;
	}
	return 0;
}

/* Waits for completions until fewer than `below` batches are in flight. */
static int drain(struct shipper *s, unsigned below)
{
	while (inflight(s) >= below && inflight(s) > 0) {
		struct ibv_wc wc;
		enum rs_wait_result r =
		    rs_conn_next_completion(&s->conn, &wc, SHIP_WAIT_MS);
		if (r == RS_WAIT_TIMEOUT)
			continue;
		if (r != RS_WAIT_COMPLETION) {
			report_lost(s, r == RS_WAIT_CM_EVENT
					   ? "disconnected"
					   : "completion error");
			return RS_EXIT_CONNECT;
		}
		int rc = on_completion(s, &wc);
		if (rc)
			return rc;
	}
	return 0;
}

/* True when the input has at least one more byte: the log is then full. */
static bool input_has_more(struct send_input *in)
{
	uint8_t probe;
	return send_input_fill(in, &probe, 1, 0) > 0;
}

static int stream(struct shipper *s, struct send_input *in)
{
	for (;;) {
		int rc = drain(s, s->depth);
		if (rc)
			return rc;
		if (in->eof || send_stop_requested)
			break;

		uint64_t room = s->info.end_offset - s->next_offset;
		uint32_t cap =
		    room < s->batch_max ? (uint32_t)room : s->batch_max;
		if (cap == 0) {
			if (!input_has_more(in))
				break;
			rc = drain(s, 1);
			rs_err("remote log full: committed %llu input bytes; "
			       "the rest did not fit (truncate with "
			       "--truncate or use a larger pool)",
			       (unsigned long long)(s->committed_offset -
						    s->first_offset));
			return rc ? rc : RS_EXIT_LOG_FULL;
		}

		struct batch *b = batch_of(s, s->next_seq);
		ssize_t n = send_input_fill(in, b->data, cap,
					    s->cfg->flush_interval_ms);
		if (n < 0) {
			rs_err("cannot read %s: %s", in->name, strerror(errno));
			rc = drain(s, 1);
			return rc ? rc : RS_EXIT_USAGE;
		}
		if (n == 0)
			continue;
		b->seq = s->next_seq;
		b->offset = s->next_offset;
		b->length = (uint32_t)n;
		b->posted_ns = send_stats_now_ns();
		if (post_batch(s, b)) {
			rs_err("cannot post a write: %s", strerror(errno));
			return RS_EXIT_CONNECT;
		}
		s->next_seq++;
		s->next_offset += (uint64_t)n;
	}
	return drain(s, 1);
}

static void ship_teardown(struct shipper *s)
{
	rs_conn_disconnect(&s->conn);
	rs_conn_destroy(&s->conn);
	rs_mr_dereg(&s->ring_mr);
	rs_mr_dereg(&s->ctl_mr);
	rs_peer_delete(&s->peer);
	free(s->ring);
	free(s->ctl);
	free(s->batches);
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
	int rc = ship_connect(&s);
	if (!rc)
		rc = ship_negotiate(&s);
	if (!rc)
		rc = stream(&s, in);
	send_progress_finish(&s.progress, s.stats);
	result->method = s.method;
	result->committed = s.committed_offset - s.first_offset;
	result->log_used = s.committed_offset - s.info.start_offset;
	result->log_size = s.info.end_offset - s.info.start_offset;
	ship_teardown(&s);
	return rc;
}
