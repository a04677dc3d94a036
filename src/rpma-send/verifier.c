#include "verifier.h"

#include "exit_code.h"
#include "input.h"
#include "link.h"
#include "log.h"
#include "mr.h"
#include "stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#define VERIFY_WAIT_MS 1000

/* One chunk being compared. */
struct chunk {
	uint64_t index;
	uint64_t local_len;
	uint64_t remote_len;
	uint64_t remote_hash;
	bool answered;	 /* the hash or the read came back */
	uint8_t *local;	 /* the local bytes */
	uint8_t *remote; /* read mode: the replica's bytes */
};

struct verifier {
	const struct verify_config *cfg;
	struct send_link link;
	uint64_t log_offset; /* where the compared range starts in the log */
	uint64_t remote_len;
	uint8_t *bufs; /* local and remote bytes of every chunk slot */
	struct ibv_mr *bufs_mr;
	struct chunk *chunks;
	uint64_t next;	 /* next chunk to issue */
	uint64_t oldest; /* oldest chunk not evaluated */
	bool input_done;
	/* The first difference, and a copy of its chunk's local bytes. */
	bool found;
	uint64_t diff_chunk_offset;
	uint64_t diff_len; /* bytes both sides have in that chunk */
	uint8_t *diff_local;
	struct verify_result *result;
	int fd;
	const char *name;
	uint64_t local_total; /* local bytes read */
	/* -v: a run of differing chunks not yet printed. */
	bool in_range;
	uint64_t range_start, range_end;
};

int verify_method_parse(const char *name, enum verify_method *m)
{
	if (strcmp(name, "hash") == 0)
		*m = VERIFY_HASH;
	else if (strcmp(name, "read") == 0)
		*m = VERIFY_READ;
	else
		return -1;
	return 0;
}

static struct chunk *chunk_of(struct verifier *v, uint64_t index)
{
	return &v->chunks[index % v->cfg->depth];
}

static ssize_t read_full(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);
		if (n == 0)
			break;
		if (n < 0 && errno == EINTR && !send_stop_requested)
			continue;
		if (n < 0)
			return -1;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int post_hash(struct verifier *v, uint64_t index, uint64_t offset,
		     uint64_t len)
{
	struct link_slot *slot = &v->link.slots[index % v->link.nslots];
	struct rs_msg msg = {.type = RS_MSG_HASH,
			     .seq = (uint32_t)index,
			     .offset = offset,
			     .length = len};
	rs_msg_encode(&msg, slot->request, sizeof(slot->request));
	return rs_conn_post_send(&v->link.conn, slot->request, RS_MSG_SIZE,
				 v->link.slots_mr->lkey, UINT64_MAX,
				 IBV_SEND_SIGNALED);
}

static int post_read(struct verifier *v, uint64_t index, uint64_t offset,
		     uint64_t len, uint8_t *dst)
{
	const struct rs_mr_desc *d = &v->link.info.data_read;
	return rs_conn_post_read(&v->link.conn, dst, (uint32_t)len,
				 v->bufs_mr->lkey,
				 d->addr + (offset - v->link.info.start_offset),
				 d->rkey, index, IBV_SEND_SIGNALED);
}

/* Waits for the answer about chunk `index`. Returns an exit code. */
static int await(struct verifier *v, uint64_t index, uint64_t *hash)
{
	for (;;) {
		struct ibv_wc wc;
		enum rs_wait_result r =
		    rs_conn_next_completion(&v->link.conn, &wc, VERIFY_WAIT_MS);
		if (r == RS_WAIT_TIMEOUT)
			continue;
		if (r != RS_WAIT_COMPLETION || wc.status != IBV_WC_SUCCESS) {
			rs_err("connection to %s lost while verifying",
			       v->cfg->remote.host);
			return RS_EXIT_CONNECT;
		}
		if (wc.opcode == IBV_WC_RDMA_READ) {
			if (wc.wr_id != index)
				break;
			return RS_EXIT_OK;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		uint16_t i = (uint16_t)wc.wr_id;
		struct rs_msg reply;
		const char *why =
		    rs_msg_decode(v->link.slots[i].reply, wc.byte_len, &reply);
		if (!why && (reply.type != RS_MSG_HASH_DONE ||
			     reply.seq != (uint32_t)index))
			why = "unexpected reply";
		if (!why && reply.status != RS_MSG_OK)
			why = rs_msg_status_str(reply.status);
		if (why) {
			rs_err("the receiver could not hash the log (%s)", why);
			return RS_EXIT_USAGE;
		}
		*hash = reply.hash;
		if (rs_conn_post_recv(&v->link.conn, v->link.slots[i].reply,
				      RS_MSG_SIZE, v->link.slots_mr->lkey, i))
			return RS_EXIT_CONNECT;
		return RS_EXIT_OK;
	}
	rs_err("RDMA reads completed out of order while verifying");
	return RS_EXIT_CONNECT;
}

/* Reads the next local chunk and asks about the remote one. Sets *none
 * when both sides have ended. */
static int issue(struct verifier *v, bool *none)
{
	uint64_t index = v->next;
	uint64_t off = index * v->cfg->chunk;
	struct chunk *c = chunk_of(v, index);
	uint64_t want = v->cfg->chunk;
	if (off >= v->cfg->local_max)
		want = 0;
	else if (v->cfg->local_max - off < want)
		want = v->cfg->local_max - off;
	ssize_t n = 0;
	if (!v->input_done && want > 0)
		n = read_full(v->fd, c->local, want);
	if (n < 0) {
		rs_err("cannot read %s: %s", v->name, strerror(errno));
		return RS_EXIT_USAGE;
	}
	v->local_total += (uint64_t)n;
	if ((uint64_t)n < want || want == 0)
		v->input_done = true;
	c->index = index;
	c->local_len = (uint64_t)n;
	c->remote_len = 0;
	if (off < v->remote_len)
		c->remote_len = v->remote_len - off < v->cfg->chunk
				    ? v->remote_len - off
				    : v->cfg->chunk;
	*none = c->local_len == 0 && c->remote_len == 0;
	if (*none)
		return RS_EXIT_OK;
	v->next++;
	uint64_t both =
	    c->local_len < c->remote_len ? c->local_len : c->remote_len;
	c->answered = both == 0; /* a pure length difference needs no ask */
	if (both == 0)
		return RS_EXIT_OK;
	int ret =
	    v->cfg->method == VERIFY_READ
		? post_read(v, index, v->log_offset + off, both, c->remote)
		: post_hash(v, index, v->log_offset + off, both);
	if (ret) {
		rs_err("cannot post a verify request: %s", strerror(errno));
		return RS_EXIT_CONNECT;
	}
	return RS_EXIT_OK;
}

/* -v: prints differing chunks as merged ranges. */
static void note_range(struct verifier *v, uint64_t start, uint64_t end)
{
	if (v->in_range && start == v->range_end) {
		v->range_end = end;
		return;
	}
	if (v->in_range)
		rs_verbose("differs in bytes [%llu, %llu)",
			   (unsigned long long)v->range_start,
			   (unsigned long long)v->range_end);
	v->in_range = true;
	v->range_start = start;
	v->range_end = end;
}

/* Compares the oldest chunk once its answer is in. Returns true when the
 * comparison can stop. */
static bool evaluate(struct verifier *v, struct chunk *c)
{
	uint64_t off = c->index * v->cfg->chunk;
	uint64_t both =
	    c->local_len < c->remote_len ? c->local_len : c->remote_len;
	bool same_bytes =
	    both == 0 || (v->cfg->method == VERIFY_READ
			      ? memcmp(c->local, c->remote, both) == 0
			      : XXH3_64bits(c->local, both) == c->remote_hash);
	v->result->compared += both;
	if (same_bytes && c->local_len == c->remote_len)
		return false;

	uint64_t longest =
	    c->local_len > c->remote_len ? c->local_len : c->remote_len;
	if (v->cfg->all_ranges)
		note_range(v, off, off + longest);
	if (!v->found) {
		v->found = true;
		v->diff_chunk_offset = off;
		v->diff_len = same_bytes ? 0 : both;
		if (!same_bytes)
			memcpy(v->diff_local, c->local, both);
		if (same_bytes) /* only the lengths differ */
			v->result->first_difference = off + both;
		v->result->outcome = !same_bytes ? VERIFY_DIFFERENT
				     : c->local_len > c->remote_len
					 ? VERIFY_REMOTE_SHORTER
					 : VERIFY_REMOTE_LONGER;
	}
	return !v->cfg->all_ranges;
}

/* Runs the pipeline over every chunk (or to the first difference). */
static int compare_chunks(struct verifier *v)
{
	bool ended = false, stop = false;
	for (;;) {
		while (!ended && !stop && v->next - v->oldest < v->cfg->depth) {
			int rc = issue(v, &ended);
			if (rc)
				return rc;
		}
		if (v->next == v->oldest)
			return RS_EXIT_OK;
		struct chunk *c = chunk_of(v, v->oldest);
		if (!c->answered) {
			int rc = await(v, c->index, &c->remote_hash);
			if (rc)
				return rc;
			c->answered = true;
		}
		v->oldest++;
		if (!stop && evaluate(v, c))
			stop = true; /* drain what is in flight, then end */
		if (send_stop_requested) {
			rs_err("verify interrupted");
			return RS_EXIT_USAGE;
		}
	}
}

static int remote_hash_sync(struct verifier *v, uint64_t offset, uint64_t len,
			    uint64_t *hash)
{
	uint64_t index = v->next++;
	if (post_hash(v, index, v->log_offset + offset, len))
		return RS_EXIT_CONNECT;
	return await(v, index, hash);
}

/* Narrows the first differing chunk down to its first differing byte: one
 * RDMA read where the receiver allows it, else halving with hashes. */
static int find_first_byte(struct verifier *v)
{
	uint64_t base = v->diff_chunk_offset;
	if (v->link.info.data_read.length != 0) {
		uint8_t *remote = v->chunks[0].remote;
		uint64_t index = v->next++;
		if (post_read(v, index, v->log_offset + base, v->diff_len,
			      remote))
			return RS_EXIT_CONNECT;
		int rc = await(v, index, 0);
		if (rc)
			return rc;
		uint64_t i = 0;
		while (i < v->diff_len && remote[i] == v->diff_local[i])
			i++;
		v->result->first_difference = base + i;
		return RS_EXIT_OK;
	}
	uint64_t lo = 0, n = v->diff_len;
	while (n > 1) {
		uint64_t half = n / 2, h;
		int rc = remote_hash_sync(v, base + lo, half, &h);
		if (rc)
			return rc;
		if (h == XXH3_64bits(v->diff_local + lo, half)) {
			lo += half;
			n -= half;
		} else {
			n = half;
		}
	}
	v->result->first_difference = base + lo;
	return RS_EXIT_OK;
}

static int verifier_setup(struct verifier *v)
{
	bool busy;
	struct link_request r = {
	    .remote = &v->cfg->remote,
	    .timeout_ms = v->cfg->timeout_ms,
	    .req = {.flags = RS_CONNECT_VERIFY, .method = RS_METHOD_AUTO},
	    .slots = v->cfg->depth,
	};
	int rc = send_link_open(&v->link, &r, &busy);
	if (rc)
		return rc;
	const struct rs_accept_info *info = &v->link.info;
	if (v->cfg->method == VERIFY_READ && info->data_read.length == 0) {
		rs_err("--verify=read needs remote read of the pool, which the "
		       "receiver's RDMA device cannot register (fsdax without "
		       "ODP); use --verify=hash");
		return RS_EXIT_USAGE;
	}
	uint64_t committed_end = info->write_offset_value;
	if (v->cfg->whole_log) {
		v->log_offset = info->start_offset;
		v->remote_len = committed_end - info->start_offset;
	} else {
		v->log_offset = v->cfg->offset;
		v->remote_len = 0;
		if (v->cfg->offset < committed_end)
			v->remote_len = committed_end - v->cfg->offset;
		if (v->remote_len > v->cfg->length)
			v->remote_len = v->cfg->length;
	}
	v->result->remote_length = v->remote_len;

	size_t per = (size_t)v->cfg->chunk * 2;
	size_t total = per * v->cfg->depth;
	v->bufs = malloc(total);
	v->chunks = calloc(v->cfg->depth, sizeof(*v->chunks));
	v->diff_local = malloc(v->cfg->chunk);
	if (!v->bufs || !v->chunks || !v->diff_local) {
		rs_err("cannot allocate %zu bytes of verify buffers", total);
		return RS_EXIT_USAGE;
	}
	int err = rs_mr_reg(&v->link.peer, v->bufs, total,
			    IBV_ACCESS_LOCAL_WRITE, &v->bufs_mr);
	if (err) {
		rs_err("cannot register verify buffers: %s",
		       rs_mr_reg_advice(err));
		return RS_EXIT_USAGE;
	}
	for (uint16_t i = 0; i < v->cfg->depth; i++) {
		v->chunks[i].local = v->bufs + per * i;
		v->chunks[i].remote = v->bufs + per * i + v->cfg->chunk;
	}
	return RS_EXIT_OK;
}

int verify_run(const struct verify_config *cfg, int fd, const char *name,
	       struct verify_result *result)
{
	struct verifier v;
	memset(&v, 0, sizeof(v));
	memset(result, 0, sizeof(*result));
	v.cfg = cfg;
	v.fd = fd;
	v.name = name;
	v.result = result;
	uint64_t start_ns = send_stats_now_ns();
	int rc = verifier_setup(&v);
	if (!rc)
		rc = compare_chunks(&v);
	if (!rc && v.found && result->outcome == VERIFY_DIFFERENT)
		rc = find_first_byte(&v);
	if (!rc && v.in_range)
		rs_verbose("differs in bytes [%llu, %llu)",
			   (unsigned long long)v.range_start,
			   (unsigned long long)v.range_end);
	result->local_length = v.local_total;
	result->seconds = (double)(send_stats_now_ns() - start_ns) / 1e9;
	rs_mr_dereg(&v.bufs_mr);
	send_link_close(&v.link);
	free(v.bufs);
	free(v.chunks);
	free(v.diff_local);
	return rc;
}
