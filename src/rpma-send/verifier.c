#include "verifier.h"

#include "cli/exit_code.h"
#include "cli/log.h"
#include "connect.h"
#include "error.h"
#include "input.h"
#include "rdma/mr.h"
#include "session/session.h"
#include "stats.h"

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#define VERIFY_WAIT_MS 1000
#define VERIFY_READ_PIECE (64u * 1024) /* at most 16 per 1 MiB chunk */

/* How the replica's bytes or hashes are obtained. */
enum verify_path {
	PATH_HASH,	/* the receiver hashes the range */
	PATH_READ,	/* RDMA read of the pool itself */
	PATH_READ_RING, /* the receiver copies into its ring; we read that */
};

/* One chunk being compared. */
struct chunk {
	uint64_t index;
	uint64_t log_offset; /* where its remote bytes are */
	uint64_t asked;	     /* bytes asked about */
	uint64_t local_len;
	uint64_t remote_len;
	uint64_t remote_hash;
	bool answered;	 /* the hash or the bytes are here */
	uint8_t *local;	 /* the local bytes */
	uint8_t *remote; /* read paths: the replica's bytes */
};

struct verifier {
	const struct verify_config *cfg;
	struct rs_session *rs;
	enum verify_path path;
	uint32_t chunk_size;
	uint16_t depth;
	uint64_t log_offset; /* where the compared range starts in the log */
	uint64_t remote_len;
	uint8_t *bufs; /* local and remote bytes of every chunk slot */
	struct rs_mr *bufs_mr;
	struct chunk *chunks;
	uint64_t next;	 /* next chunk index to use */
	uint64_t oldest; /* oldest chunk not evaluated */
	int fd;
	const char *name;
	bool input_done;
	uint64_t local_total;
	/* The first difference, and a copy of its chunk's local bytes. */
	bool found;
	uint64_t diff_chunk_offset;
	uint64_t diff_len; /* bytes both sides have in that chunk */
	uint8_t *diff_local;
	struct verify_result *result;
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
	return &v->chunks[index % v->depth];
}

static uint64_t ring_slot_offset(const struct verifier *v, uint64_t index)
{
	return (index % v->depth) * rs_session_grant(v->rs)->staging_slot_size;
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

static int post_message(struct verifier *v, uint8_t type, uint64_t index,
			uint64_t offset, uint64_t len)
{
	struct rs_msg msg = {.type = type,
			     .seq = (uint32_t)index,
			     .offset = offset,
			     .length = len};
	if (type == RS_MSG_READ_STAGE)
		msg.ring_offset = ring_slot_offset(v, index);
	uint16_t slot = (uint16_t)(index % rs_session_slots(v->rs));
	return rs_session_send(v->rs, slot, &msg, UINT64_MAX, RS_POST_SIGNALED);
}

/* RDMA-reads chunk c's remote bytes: from the pool, or from the ring slot
 * the receiver copied them into. */
static int post_read(struct verifier *v, struct chunk *c)
{
	const struct rs_accept_info *info = rs_session_grant(v->rs);
	const struct rs_mr_desc *src = &info->data_read;
	uint64_t remote = c->log_offset - info->start_offset;
	if (v->path == PATH_READ_RING) {
		src = &info->staging_read;
		remote = ring_slot_offset(v, c->index);
	}
	size_t local = (size_t)(c->remote - v->bufs);
	/* In pieces: Soft-RoCE reads of 1 MiB crawl (0.4 MiB/s measured
	 * against 46 MiB/s at 64 KiB); hardware does not mind. Reads complete
	 * in order, so only the last piece is signaled. */
	for (uint64_t done = 0; done < c->asked; done += VERIFY_READ_PIECE) {
		uint64_t n = c->asked - done < VERIFY_READ_PIECE
				 ? c->asked - done
				 : VERIFY_READ_PIECE;
		bool last = done + n == c->asked;
		if (rs_conn_read(rs_session_conn(v->rs), v->bufs_mr,
				 local + done, src, remote + done, (uint32_t)n,
				 c->index, last ? RS_POST_SIGNALED : 0))
			return -1;
	}
	return 0;
}

/* Asks about `len` remote bytes at log_offset for chunk c (by hash when
 * by_hash, else for the bytes themselves). */
static int request(struct verifier *v, struct chunk *c, uint64_t log_offset,
		   uint64_t len, bool by_hash)
{
	c->log_offset = log_offset;
	c->asked = len;
	c->answered = false;
	if (by_hash)
		return post_message(v, RS_MSG_HASH, c->index, log_offset, len);
	if (v->path == PATH_READ_RING)
		return post_message(v, RS_MSG_READ_STAGE, c->index, log_offset,
				    len);
	return post_read(v, c);
}

/* The chunk a reply or read completion is about, if it is one in flight. */
static struct chunk *in_flight(struct verifier *v, uint64_t seq_or_index,
			       bool only_low_bits)
{
	struct chunk *c = chunk_of(v, seq_or_index);
	bool match = only_low_bits
			 ? (uint32_t)c->index == (uint32_t)seq_or_index
			 : c->index == seq_or_index;
	return match && !c->answered ? c : 0;
}

static int on_reply(struct verifier *v, const struct rs_completion *wc)
{
	struct rs_msg reply;
	uint16_t slot;
	struct rs_error err = {0};
	const char *why = 0;
	if (rs_session_take(v->rs, wc, &reply, &slot, &err))
		why = err.msg;
	struct chunk *c = why ? 0 : in_flight(v, reply.seq, true);
	if (!why && (!c || (reply.type != RS_MSG_HASH_DONE &&
			    reply.type != RS_MSG_READ_STAGE_DONE)))
		why = "unexpected reply";
	if (!why && reply.status != RS_MSG_OK)
		why = rs_msg_status_str(reply.status);
	if (why) {
		rs_err("the receiver could not serve the verify (%s)", why);
		return RS_EXIT_USAGE;
	}
	if (reply.type == RS_MSG_HASH_DONE) {
		c->remote_hash = reply.hash;
		c->answered = true;
		return RS_EXIT_OK;
	}
	/* The bytes wait in the ring slot: read them now. */
	return post_read(v, c) ? RS_EXIT_CONNECT : RS_EXIT_OK;
}

/* Handles one completion. */
static int pump(struct verifier *v)
{
	struct rs_completion wc;
	enum rs_wait_result r = rs_conn_next_completion(rs_session_conn(v->rs),
							&wc, VERIFY_WAIT_MS);
	if (r == RS_WAIT_TIMEOUT)
		return send_stop_requested ? RS_EXIT_USAGE : RS_EXIT_OK;
	if (r != RS_WAIT_COMPLETION || !wc.ok) {
		char receiver[RS_TARGET_LABEL_SIZE];
		rs_err("connection to %s lost while verifying",
		       rs_target_label(&v->cfg->remote, receiver,
				       sizeof(receiver)));
		return RS_EXIT_CONNECT;
	}
	if (wc.op == RS_OP_RECV)
		return on_reply(v, &wc);
	if (wc.op == RS_OP_READ) {
		struct chunk *c = in_flight(v, wc.wr_id, false);
		if (!c) {
			rs_err("an RDMA read completed for no chunk");
			return RS_EXIT_CONNECT;
		}
		c->answered = true;
	}
	return RS_EXIT_OK;
}

static int await(struct verifier *v, struct chunk *c)
{
	while (!c->answered) {
		int rc = pump(v);
		if (rc)
			return rc;
	}
	return RS_EXIT_OK;
}

/* Reads the next local chunk and asks about the remote one. Sets *ended
 * when both sides have ended. */
static int issue(struct verifier *v, bool *ended)
{
	uint64_t index = v->next;
	uint64_t off = index * v->chunk_size;
	struct chunk *c = chunk_of(v, index);
	uint64_t want = v->chunk_size;
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
		c->remote_len = v->remote_len - off < v->chunk_size
				    ? v->remote_len - off
				    : v->chunk_size;
	*ended = c->local_len == 0 && c->remote_len == 0;
	if (*ended)
		return RS_EXIT_OK;
	v->next++;
	uint64_t both =
	    c->local_len < c->remote_len ? c->local_len : c->remote_len;
	if (both == 0) { /* a pure length difference needs no question */
		c->asked = 0;
		c->answered = true;
		return RS_EXIT_OK;
	}
	if (request(v, c, v->log_offset + off, both, v->path == PATH_HASH)) {
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
	uint64_t off = c->index * v->chunk_size;
	uint64_t both = c->asked;
	bool same_bytes =
	    both == 0 || (v->path == PATH_HASH
			      ? XXH3_64bits(c->local, both) == c->remote_hash
			      : memcmp(c->local, c->remote, both) == 0);
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
		else /* only the lengths differ */
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
		while (!ended && !stop && v->next - v->oldest < v->depth) {
			int rc = issue(v, &ended);
			if (rc)
				return rc;
		}
		if (v->next == v->oldest)
			return RS_EXIT_OK;
		struct chunk *c = chunk_of(v, v->oldest);
		int rc = await(v, c);
		if (rc)
			return rc;
		v->oldest++;
		if (!stop && evaluate(v, c))
			stop = true; /* drain what is in flight, then end */
	}
}

/* Narrows the first differing chunk down to its first differing byte: by
 * reading the chunk back, or where no read is granted, by halving it with
 * hashes. Nothing else is in flight here. */
static int find_first_byte(struct verifier *v)
{
	uint64_t base = v->diff_chunk_offset;
	const struct rs_accept_info *info = rs_session_grant(v->rs);
	bool can_read = v->path != PATH_HASH || info->data_read.length ||
			info->staging_read.length;
	if (can_read) {
		if (v->path == PATH_HASH)
			v->path =
			    info->data_read.length ? PATH_READ : PATH_READ_RING;
		struct chunk *c = chunk_of(v, v->next);
		c->index = v->next++;
		int rc =
		    request(v, c, v->log_offset + base, v->diff_len, false);
		if (!rc)
			rc = await(v, c);
		if (rc)
			return rc;
		uint64_t i = 0;
		while (i < v->diff_len && c->remote[i] == v->diff_local[i])
			i++;
		v->result->first_difference = base + i;
		return RS_EXIT_OK;
	}
	uint64_t lo = 0, n = v->diff_len;
	while (n > 1) {
		uint64_t half = n / 2;
		struct chunk *c = chunk_of(v, v->next);
		c->index = v->next++;
		int rc = request(v, c, v->log_offset + base + lo, half, true);
		if (!rc)
			rc = await(v, c);
		if (rc)
			return rc;
		if (c->remote_hash == XXH3_64bits(v->diff_local + lo, half)) {
			lo += half;
			n -= half;
		} else {
			n = half;
		}
	}
	v->result->first_difference = base + lo;
	return RS_EXIT_OK;
}

/* Chooses how to read, and the range of the log to compare. */
static int plan(struct verifier *v)
{
	const struct rs_accept_info *info = rs_session_grant(v->rs);
	v->depth =
	    v->cfg->depth < info->credits ? v->cfg->depth : info->credits;
	v->chunk_size = v->cfg->chunk;
	v->path = PATH_HASH;
	if (v->cfg->method == VERIFY_READ) {
		if (info->data_read.length) {
			v->path = PATH_READ;
		} else if (info->staging_read.length) {
			v->path = PATH_READ_RING;
			if (v->chunk_size > info->staging_slot_size)
				v->chunk_size = info->staging_slot_size;
		} else {
			rs_err("--verify=read: the receiver grants no remote "
			       "read; use --verify=hash");
			return RS_EXIT_USAGE;
		}
	}
	/* A first difference may be read back through the ring. */
	if (info->staging_read.length && !info->data_read.length &&
	    v->chunk_size > info->staging_slot_size)
		v->chunk_size = info->staging_slot_size;

	uint64_t committed_end = info->write_offset_value;
	if (v->cfg->whole_log) {
		v->log_offset = info->start_offset;
		v->remote_len = committed_end - info->start_offset;
	} else {
		v->log_offset = info->start_offset + v->cfg->offset;
		v->remote_len = 0;
		if (v->log_offset < committed_end)
			v->remote_len = committed_end - v->log_offset;
		if (v->remote_len > v->cfg->length)
			v->remote_len = v->cfg->length;
	}
	v->result->remote_length = v->remote_len;
	return RS_EXIT_OK;
}

static int setup(struct verifier *v)
{
	struct send_peer peer = {.remote = &v->cfg->remote,
				 .timeout_ms = v->cfg->timeout_ms,
				 .key = v->cfg->auth_key};
	struct rs_connect_req req = {.flags = RS_CONNECT_VERIFY,
				     .method = RS_METHOD_AUTO};
	bool transient;
	/* Sixteen reads per verified chunk. */
	int rc =
	    send_connect(&peer, req, v->cfg->depth, 16, &v->rs, &transient);
	if (!rc)
		rc = plan(v);
	if (rc)
		return rc;

	size_t per = (size_t)v->chunk_size * 2;
	size_t total = per * v->depth;
	v->bufs = malloc(total);
	v->chunks = calloc(v->depth, sizeof(*v->chunks));
	v->diff_local = malloc(v->chunk_size);
	if (!v->bufs || !v->chunks || !v->diff_local) {
		rs_err("cannot allocate %zu bytes of verify buffers", total);
		return RS_EXIT_USAGE;
	}
	struct rs_error err = {0};
	if (rs_mr_reg(rs_session_peer(v->rs), v->bufs, total, RS_MR_LOCAL,
		      &v->bufs_mr, &err)) {
		rs_err("cannot register verify buffers: %s", err.msg);
		return RS_EXIT_USAGE;
	}
	for (uint16_t i = 0; i < v->depth; i++) {
		v->chunks[i].local = v->bufs + per * i;
		v->chunks[i].remote = v->bufs + per * i + v->chunk_size;
		v->chunks[i].index = UINT64_MAX; /* matches no completion */
		v->chunks[i].answered = true;
	}
	return RS_EXIT_OK;
}

static void teardown(struct verifier *v)
{
	rs_mr_dereg(&v->bufs_mr);
	rs_session_delete(&v->rs);
	free(v->bufs);
	free(v->chunks);
	free(v->diff_local);
}

/* Folds the receiver's hashes of every chunk, in order, into one. The
 * chunk size is the configured one whatever the receiver's ring allows,
 * so that two receivers holding the same bytes give the same digest. */
static int digest_chunks(struct verifier *v, uint64_t *digest)
{
	uint64_t size = v->cfg->chunk;
	uint64_t chunks = (v->remote_len + size - 1) / size;
	uint64_t h = 0;
	while (v->oldest < chunks) {
		while (v->next < chunks && v->next - v->oldest < v->depth) {
			struct chunk *c = chunk_of(v, v->next);
			uint64_t off = v->next * size;
			uint64_t len = v->remote_len - off < size
					   ? v->remote_len - off
					   : size;
			c->index = v->next++;
			if (request(v, c, v->log_offset + off, len, true)) {
				rs_err("cannot post a verify request: %s",
				       strerror(errno));
				return RS_EXIT_CONNECT;
			}
		}
		struct chunk *c = chunk_of(v, v->oldest);
		int rc = await(v, c);
		if (rc)
			return rc;
		uint64_t le = htole64(c->remote_hash);
		h = XXH3_64bits_withSeed(&le, sizeof(le), h);
		v->oldest++;
	}
	*digest = h;
	return RS_EXIT_OK;
}

int verify_digest(const struct verify_config *cfg, uint64_t *length,
		  uint64_t *digest)
{
	struct verifier v;
	struct verify_result result;
	memset(&v, 0, sizeof(v));
	memset(&result, 0, sizeof(result));
	v.cfg = cfg;
	v.fd = -1;
	v.result = &result;
	int rc = setup(&v);
	if (!rc)
		rc = digest_chunks(&v, digest);
	*length = v.remote_len;
	teardown(&v);
	return rc;
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
	int rc = setup(&v);
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
	teardown(&v);
	return rc;
}
