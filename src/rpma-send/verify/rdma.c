#include "verify/rdma.h"

#include "cli/log.h"
#include "common/stats.h"
#include "connect/read_prefix.h"
#include "error.h"
#include "rdma/mr.h"
#include "replicas/liveness.h"
#include "session/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define VERIFY_WAIT_MS 1000
#define VERIFY_READ_PIECE (64u * 1024) /* at most 16 per 1 MiB chunk */

struct verify_rdma {
	struct rs_session *rs;
	const struct rs_accept_info *grant;
	uint16_t depth;
	uint32_t chunk;
	uint8_t *bufs; /* a chunk of read-back bytes per slot */
	struct rs_mr *mr;
	char peer[RS_TARGET_LABEL_SIZE];
	/* A receiver that dies with our request (its queue pair gone, its
	 * goodbye lost) never answers and raises no event: silence is
	 * judged as a stream's is (replicas/liveness.h). */
	struct send_liveness live;
	uint64_t peer_timeout_ns;
	uint64_t waiting_ns; /* since the last answer (or the start) */
};

void verify_rdma_offer(const struct rs_session *rs, struct verify_offer *o)
{
	const struct rs_accept_info *info = rs_session_grant(rs);
	*o = (struct verify_offer){
	    .credits = info->credits,
	    .pool_readable = info->data_read.length != 0,
	    .ring_readable = info->staging_read.length != 0,
	    .ring_slot = info->staging_slot_size,
	    .start = 0,
	    .pool_start = info->log_base,
	    .committed_end =
		info->log_base + info->write_offset_value - info->start_offset,
	};
}

/* A post fails only on a connection that is gone. */
static int post_failed(struct rs_error *err)
{
	int e = errno;
	return rs_error_set(err, RS_E_LOST, e, "%s", strerror(e));
}

static uint64_t ring_slot_offset(const struct verify_rdma *l, uint64_t id)
{
	return (id % l->depth) * l->grant->staging_slot_size;
}

static uint8_t *slot_bytes(const struct verify_rdma *l, uint64_t id)
{
	return l->bufs + (size_t)(id % l->depth) * l->chunk;
}

static int post_message(struct verify_rdma *l, uint8_t type, uint64_t id,
			uint64_t offset, uint64_t len, struct rs_error *err)
{
	struct rs_msg msg = {
	    .type = type, .seq = (uint32_t)id, .offset = offset, .length = len};
	if (type == RS_MSG_READ_STAGE)
		msg.ring_offset = ring_slot_offset(l, id);
	uint16_t slot = (uint16_t)(id % rs_session_slots(l->rs));
	if (rs_session_send(l->rs, slot, &msg, UINT64_MAX, RS_POST_SIGNALED))
		return post_failed(err);
	return 0;
}

/* RDMA-reads len bytes at remote in src into id's buffer. In pieces:
 * Soft-RoCE reads of 1 MiB crawl (0.4 MiB/s measured against 46 MiB/s at
 * 64 KiB); hardware does not mind. Reads complete in order, so only the
 * last piece is signaled. */
static int read_into(struct verify_rdma *l, uint64_t id,
		     const struct rs_mr_desc *src, uint64_t remote,
		     uint64_t len, struct rs_error *err)
{
	size_t local = (size_t)(slot_bytes(l, id) - l->bufs);
	for (uint64_t done = 0; done < len; done += VERIFY_READ_PIECE) {
		uint64_t n = len - done < VERIFY_READ_PIECE ? len - done
							    : VERIFY_READ_PIECE;
		bool last = done + n == len;
		if (rs_conn_read(rs_session_conn(l->rs), l->mr, local + done,
				 src, remote + done, (uint32_t)n, id,
				 last ? RS_POST_SIGNALED : 0))
			return post_failed(err);
	}
	return 0;
}

static int link_post_hash(void *ctx, uint64_t id, uint64_t log_offset,
			  uint64_t len, struct rs_error *err)
{
	return post_message(ctx, RS_MSG_HASH, id, log_offset, len, err);
}

/* From the pool where it is readable (its committed prefix when granted),
 * else (the archive's bytes, any committed since) through the ring: the
 * receiver copies the range into id's ring slot first. */
static int link_post_read(void *ctx, uint64_t id, uint64_t log_offset,
			  uint64_t len, struct rs_error *err)
{
	struct verify_rdma *l = ctx;
	struct read_prefix readable = read_prefix_of(l->grant);
	if (read_prefix_covers(&readable, log_offset, len))
		return read_into(l, id, &l->grant->data_read,
				 log_offset - readable.base, len, err);
	return post_message(l, RS_MSG_READ_STAGE, id, log_offset, len, err);
}

static int link_read_staged(void *ctx, uint64_t id, uint64_t len,
			    struct rs_error *err)
{
	struct verify_rdma *l = ctx;
	return read_into(l, id, &l->grant->staging_read,
			 ring_slot_offset(l, id), len, err);
}

struct verify_link verify_rdma_link(struct verify_rdma *l)
{
	return (struct verify_link){.ctx = l,
				    .post_hash = link_post_hash,
				    .post_read = link_post_read,
				    .read_staged = link_read_staged};
}

static int on_reply(struct verify_rdma *l, struct verify_pipeline *p,
		    const struct rs_completion *wc, struct rs_error *err)
{
	struct rs_msg reply;
	uint16_t slot;
	struct rs_error why = {0};
	if (rs_session_take(l->rs, wc, &reply, &slot, &why))
		return verify_pipeline_refused(p, why.msg, err);
	if (reply.type != RS_MSG_HASH_DONE &&
	    reply.type != RS_MSG_READ_STAGE_DONE)
		return verify_pipeline_refused(p, "unexpected reply", err);
	if (reply.status != RS_MSG_OK)
		return verify_pipeline_refused(
		    p, rs_msg_status_str(reply.status), err);
	if (reply.type == RS_MSG_HASH_DONE)
		return verify_pipeline_hashed(p, reply.seq, reply.hash, err);
	return verify_pipeline_staged(p, reply.seq, err);
}

/* Nothing came for a while: probe the link at half the peer timeout; a
 * probe unanswered for the other half, or a program that has what we ask
 * and says nothing for twice the timeout, is a lost link. */
static int on_silence(struct verify_rdma *l, struct verify_pipeline *p,
		      struct rs_error *err)
{
	uint64_t now = send_stats_now_ns(), silent = 0;
	switch (send_liveness_check(&l->live, l->waiting_ns, now,
				    l->peer_timeout_ns, 0, &silent)) {
	case SEND_LIVE:
		return 0;
	case SEND_PROBE:
		if (rs_conn_probe(rs_session_conn(l->rs), RS_POST_SIGNALED))
			return verify_pipeline_lost(p, l->peer, err);
		send_liveness_probed(&l->live, now);
		return 0;
	default:
		rs_info("%s said nothing for %llu ms while verifying", l->peer,
			(unsigned long long)(silent / 1000000ull));
		return verify_pipeline_lost(p, l->peer, err);
	}
}

/* A completion: word from the receiver's side; a reply or a read is what
 * we waited for. */
static void heard(struct verify_rdma *l, const struct rs_completion *wc)
{
	uint64_t now = send_stats_now_ns();
	if (wc->wr_id == RS_CONN_PROBE_WR_ID) {
		send_liveness_probe_back(&l->live, now);
	} else if (wc->op == RS_OP_RECV || wc->op == RS_OP_READ) {
		send_liveness_answered(&l->live, now);
		l->waiting_ns = now;
	} else {
		send_liveness_heard(&l->live, now);
	}
}

int verify_rdma_pump(struct verify_rdma *l, struct verify_pipeline *p,
		     bool *idle, struct rs_error *err)
{
	struct rs_completion wc;
	enum rs_wait_result r = rs_conn_next_completion(rs_session_conn(l->rs),
							&wc, VERIFY_WAIT_MS);
	*idle = r == RS_WAIT_TIMEOUT;
	if (*idle)
		return on_silence(l, p, err);
	if (r != RS_WAIT_COMPLETION || !wc.ok)
		return verify_pipeline_lost(p, l->peer, err);
	heard(l, &wc);
	if (wc.wr_id == RS_CONN_PROBE_WR_ID)
		return 0;
	if (wc.op == RS_OP_RECV)
		return on_reply(l, p, &wc, err);
	if (wc.op == RS_OP_READ)
		return verify_pipeline_read(p, wc.wr_id,
					    slot_bytes(l, wc.wr_id), err);
	return 0; /* our own sends */
}

int verify_rdma_new(struct verify_rdma **out, struct rs_session *rs,
		    const struct verify_plan *plan,
		    const struct rs_target *remote, struct rs_error *err)
{
	struct verify_rdma *l = calloc(1, sizeof(*l));
	size_t total = (size_t)plan->chunk * plan->depth;
	if (l)
		l->bufs = malloc(total);
	if (!l || !l->bufs) {
		free(l);
		return rs_error_set(err, RS_E_NOMEM, ENOMEM,
				    "cannot allocate %zu bytes of verify "
				    "buffers",
				    total);
	}
	l->rs = rs;
	l->grant = rs_session_grant(rs);
	l->depth = plan->depth;
	l->chunk = plan->chunk;
	rs_target_label(remote, l->peer, sizeof(l->peer));
	l->peer_timeout_ns = (uint64_t)l->grant->peer_timeout_ms * 1000000ull;
	l->waiting_ns = send_stats_now_ns();
	send_liveness_start(&l->live, l->waiting_ns);
	*out = l;
	/* Our own memory the device will not take, whatever the provider
	 * said: local trouble (exit 2 as always), not the link's. */
	struct rs_error why = {0};
	if (rs_mr_reg(rs_session_peer(rs), l->bufs, total, RS_MR_LOCAL, &l->mr,
		      &why)) {
		verify_rdma_delete(out);
		return rs_error_set(err, RS_E_NOMEM, why.sys_errno,
				    "cannot register verify buffers: %s",
				    why.msg);
	}
	return 0;
}

void verify_rdma_delete(struct verify_rdma **l)
{
	if (!*l)
		return;
	rs_mr_dereg(&(*l)->mr);
	free((*l)->bufs);
	free(*l);
	*l = NULL;
}
