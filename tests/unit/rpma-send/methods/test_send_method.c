/* The sender's persistence methods through their table: which method a
 * receiver's offer allows and what bounds it puts on a batch, the chain of
 * work requests each method posts for a batch (read from the chain the
 * method fills, against a real window whose link stands in for the
 * replica), and what each takes as the confirmation of a batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "methods/send_method.h"

#include <endian.h>
#include <stdio.h>
#include <string.h>

#define LOG_START 8192u	  /* the pool's data range, absolute */
#define REMOTE_USED 1000u /* what the log holds when the stream starts */
#define DEPTH 4
#define BATCH 4096u
#define STAGING_SLOT 8192u
#define POSTS 16

/* ---- fitting the offer ---- */

static struct rs_accept_info offer(uint8_t methods, uint32_t staging_slot)
{
	struct rs_accept_info info;
	memset(&info, 0, sizeof(info));
	info.methods = methods;
	info.credits = DEPTH;
	info.staging_slot_size = staging_slot;
	return info;
}

static void every_method_has_its_row(void **state)
{
	(void)state;
	assert_null(send_method_of(RS_METHOD_AUTO));
	assert_null(send_method_of((enum rs_method)RS_METHOD_COUNT));
	enum rs_method all[] = {RS_METHOD_APM, RS_METHOD_GPSPM,
				RS_METHOD_STAGED, RS_METHOD_FLUSH};
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++) {
		const struct send_method *m = send_method_of(all[i]);
		assert_non_null(m);
		assert_int_equal(m->id, all[i]);
		assert_non_null(m->post);
		assert_non_null(m->take);
	}
}

static enum rs_method chosen(uint8_t offered, enum rs_method requested)
{
	const struct send_method *m = 0;
	struct rs_error err = {0};
	assert_int_equal(send_method_choose(offered, requested, &m, &err), 0);
	assert_non_null(m);
	return m->id;
}

/* AUTO takes the fastest offered; a request is honoured when offered. */
static void choice_follows_the_offer(void **state)
{
	(void)state;
	uint8_t gpspm_staged =
	    RS_METHOD_BIT(RS_METHOD_GPSPM) | RS_METHOD_BIT(RS_METHOD_STAGED);
	assert_int_equal(chosen(RS_METHOD_ALL, RS_METHOD_AUTO),
			 RS_METHOD_FLUSH);
	assert_int_equal(chosen(RS_METHOD_ALL & ~RS_METHOD_BIT(RS_METHOD_FLUSH),
				RS_METHOD_AUTO),
			 RS_METHOD_APM);
	assert_int_equal(chosen(gpspm_staged, RS_METHOD_AUTO), RS_METHOD_GPSPM);
	assert_int_equal(
	    chosen(RS_METHOD_BIT(RS_METHOD_STAGED), RS_METHOD_AUTO),
	    RS_METHOD_STAGED);
	assert_int_equal(chosen(RS_METHOD_ALL, RS_METHOD_STAGED),
			 RS_METHOD_STAGED);
}

static void method_not_offered_is_refused(void **state)
{
	(void)state;
	const struct send_method *m = 0;
	struct rs_error err = {0};
	assert_int_equal(send_method_choose(RS_METHOD_BIT(RS_METHOD_STAGED),
					    RS_METHOD_APM, &m, &err),
			 RS_E_REJECTED);
	assert_int_equal(err.code, RS_E_REJECTED);
	assert_null(m);
	assert_non_null(strstr(err.msg, "method apm is not offered"));
	assert_non_null(strstr(err.msg, "it offers: staged"));
	assert_int_equal(send_method_choose(0, RS_METHOD_AUTO, &m, &err),
			 RS_E_REJECTED);
	assert_string_equal(err.msg, "the receiver offers no known method");
	assert_null(m);
}

/* Where this connection cannot post flush: left out of the grant; asked
 * for, or all a receiver grants (0.3.0 grants flush alone to a sender it
 * cannot ask), the refusal says why. */
static void flush_that_cannot_be_posted_is_said(void **state)
{
	(void)state;
	const uint8_t flush = RS_METHOD_BIT(RS_METHOD_FLUSH);
	const uint8_t gpspm = RS_METHOD_BIT(RS_METHOD_GPSPM);
	const char *why = "rdma-core 45 or later is needed";
	const struct send_method *m = 0;
	struct rs_error err = {0};
	assert_int_equal(
	    send_method_plan(flush | gpspm, why, RS_METHOD_AUTO, &m, &err), 0);
	assert_int_equal(m->id, RS_METHOD_GPSPM);
	assert_int_equal(
	    send_method_plan(flush | gpspm, 0, RS_METHOD_AUTO, &m, &err), 0);
	assert_int_equal(m->id, RS_METHOD_FLUSH);
	m = 0;
	assert_int_equal(send_method_plan(flush, why, RS_METHOD_AUTO, &m, &err),
			 RS_E_REJECTED);
	assert_null(m);
	assert_string_equal(err.msg, "the receiver offers flush, which cannot "
				     "be used from here: rdma-core 45 or later "
				     "is needed");
	assert_int_equal(
	    send_method_plan(flush | gpspm, why, RS_METHOD_FLUSH, &m, &err),
	    RS_E_REJECTED);
	assert_string_equal(err.msg, "method flush cannot be used from here: "
				     "rdma-core 45 or later is needed");
}

static void offered_is_the_methods_bit(void **state)
{
	(void)state;
	const struct send_method *apm = send_method_of(RS_METHOD_APM);
	const struct send_method *gpspm = send_method_of(RS_METHOD_GPSPM);
	const struct send_method *staged = send_method_of(RS_METHOD_STAGED);
	struct rs_accept_info info = offer(RS_METHOD_BIT(RS_METHOD_GPSPM) |
					       RS_METHOD_BIT(RS_METHOD_STAGED),
					   STAGING_SLOT);
	assert_false(send_method_offered(apm, &info));
	assert_true(send_method_offered(gpspm, &info));
	assert_true(send_method_offered(staged, &info));
	info.methods = RS_METHOD_BIT(RS_METHOD_APM);
	assert_true(send_method_offered(apm, &info));
	assert_false(send_method_offered(gpspm, &info));
	assert_false(send_method_offered(staged, &info));
}

/* Only staged bounds a batch: by the receiver's staging slot. */
static void staged_batches_fit_a_staging_slot(void **state)
{
	(void)state;
	struct rs_accept_info info = offer(RS_METHOD_ALL, STAGING_SLOT);
	const struct send_method *staged = send_method_of(RS_METHOD_STAGED);
	assert_int_equal(send_method_batch_cap(staged, &info), STAGING_SLOT);
	struct rs_error err = {0};
	assert_int_equal(
	    send_method_check_cap(staged, &info, STAGING_SLOT, &err), 0);
	assert_int_equal(
	    send_method_check_cap(staged, &info, STAGING_SLOT - 1, &err), 0);
	assert_int_equal(
	    send_method_check_cap(staged, &info, STAGING_SLOT + 1, &err),
	    RS_E_REJECTED);
	assert_string_equal(err.msg, "its staging slots are smaller");
	enum rs_method direct[] = {RS_METHOD_APM, RS_METHOD_GPSPM};
	for (size_t i = 0; i < 2; i++) {
		const struct send_method *m = send_method_of(direct[i]);
		assert_int_equal(send_method_batch_cap(m, &info), UINT32_MAX);
		assert_int_equal(send_method_check_cap(m, &info, 1u << 30, 0),
				 0);
	}
}

/* ---- what each method posts ---- */

struct rig {
	const struct send_method *method;
	struct rs_accept_info grant;
	struct method_ctx ctx;
	struct send_window *w;
	uint64_t words[DEPTH * 4]; /* room for any method's words */
	struct window_batch batch[POSTS];
	struct send_chain chain[POSTS];
	unsigned posts;
};

/* The window's link: the replica's post, with the method's chain kept. */
static int fake_post(void *ctx, unsigned i, struct window_batch *b)
{
	struct rig *g = ctx;
	assert_int_equal(i, 0);
	assert_true(g->posts < POSTS);
	struct send_chain *c = &g->chain[g->posts];
	c->n = 0;
	g->ctx.inflight = window_inflight_of(g->w, 0); /* as replica.c */
	g->method->post(&g->ctx, b, c);
	g->batch[g->posts++] = *b;
	return 0;
}

static void fake_committed(void *ctx, const struct window_batch *b)
{
	(void)ctx;
	(void)b;
}

/* One rig at a time, the window freed even when a test fails half way. */
static struct rig rig;

static int rig_teardown(void **state)
{
	(void)state;
	window_delete(rig.w);
	memset(&rig, 0, sizeof(rig));
	return 0;
}

/* One replica granting every method, its log at REMOTE_USED. */
static void start(struct rig *g, enum rs_method id)
{
	g->method = send_method_of(id);
	g->grant = offer(RS_METHOD_ALL, STAGING_SLOT);
	g->grant.start_offset = LOG_START;
	g->grant.data.addr = 0x10000;
	g->grant.write_offset.addr = 0x20000;
	g->grant.staging.addr = 0x30000;
	assert_true(g->method->words_per_slot * DEPTH <= sizeof(g->words));
	struct window_link link = {g, fake_post, fake_committed};
	g->w = window_new(&link);
	assert_non_null(g->w);
	assert_int_equal(
	    window_connected(g->w, 1, 1, DEPTH, BATCH, REMOTE_USED, 1u << 20),
	    0);
	g->ctx = (struct method_ctx){.grant = &g->grant,
				     .data = g->grant.data,
				     .log_start = LOG_START,
				     .w = g->w,
				     .words = g->words};
}

/* Fills and posts one batch of len bytes of c. */
static void post_one(struct rig *g, uint32_t len, uint8_t c)
{
	uint32_t room;
	uint8_t *space = window_space(g->w, &room);
	assert_non_null(space);
	assert_true(room >= len);
	memset(space, c, len);
	window_filled(g->w, len, 0);
	window_flush(g->w, 0);
}

/* Posts n batches of len bytes, the receiver confirming each as soon as
 * the window has DEPTH in flight, so that the credit slots wrap. */
static void post_batches(struct rig *g, unsigned n, uint32_t len)
{
	uint32_t confirmed = 0;
	for (unsigned k = 0; k < n; k++) {
		if (window_inflight(g->w) == DEPTH) {
			const struct window_batch *b = &g->batch[confirmed++];
			assert_int_equal(
			    window_confirmed(g->w, 0, b->seq,
					     b->offset + b->length),
			    0);
		}
		post_one(g, len, (uint8_t)('a' + k));
	}
	assert_int_equal(g->posts, n);
}

static void wr_is(const struct chain_wr *wr, enum chain_op op,
		  const struct rs_mr_desc *remote, uint64_t remote_offset,
		  enum chain_local local, size_t local_offset, uint32_t len)
{
	assert_int_equal(wr->op, op);
	assert_ptr_equal(wr->remote, remote);
	assert_int_equal(wr->remote_offset, remote_offset);
	assert_int_equal(wr->local, local);
	assert_int_equal(wr->local_offset, local_offset);
	assert_int_equal(wr->len, len);
}

/* The commit request after the data write, in the batch's credit slot;
 * the last slot's is signaled to reclaim send-queue entries. */
static void request_is(const struct rig *g, unsigned k, uint8_t type,
		       uint64_t ring_offset)
{
	const struct send_chain *c = &g->chain[k];
	const struct window_batch *b = &g->batch[k];
	uint32_t slot = b->seq % DEPTH;
	assert_int_equal(c->n, 2);
	assert_int_equal(c->wr[1].op, CHAIN_SEND);
	assert_int_equal(c->wr[1].wr_id, UINT64_MAX);
	assert_int_equal(c->wr[1].flags,
			 slot == DEPTH - 1 ? RS_POST_SIGNALED : 0);
	assert_int_equal(c->slot, slot);
	assert_int_equal(c->msg.type, type);
	assert_int_equal(c->msg.seq, b->seq);
	assert_int_equal(c->msg.offset, LOG_START + b->offset);
	assert_int_equal(c->msg.length, b->length);
	assert_int_equal(c->msg.ring_offset, ring_offset);
}

/* The batch's bytes, from its place in the ring, held back for the
 * rest of the chain. */
static void data_write_is(const struct rig *g, unsigned k,
			  const struct rs_mr_desc *dst, uint64_t dst_offset)
{
	const struct chain_wr *wr = &g->chain[k].wr[0];
	const struct window_batch *b = &g->batch[k];
	wr_is(wr, CHAIN_WRITE, dst, dst_offset, CHAIN_RING,
	      window_ring_offset(g->w, b), b->length);
	assert_int_equal(wr->wr_id, UINT64_MAX);
	assert_int_equal(wr->flags, RS_POST_MORE);
}

static void gpspm_writes_in_place_then_asks(void **state)
{
	struct rig *g = &rig;
	(void)state;
	start(g, RS_METHOD_GPSPM);
	post_batches(g, 7, 100);
	for (unsigned k = 0; k < 7; k++) {
		assert_int_equal(g->batch[k].offset, REMOTE_USED + k * 100);
		data_write_is(g, k, &g->ctx.data, g->batch[k].offset);
		request_is(g, k, RS_MSG_COMMIT, 0);
	}
}

/* Through windows: the batch is written with the key in use, and its
 * commit names it; a staged commit names none. */
static void gpspm_names_its_window_key(void **state)
{
	struct rig *g = &rig;
	(void)state;
	start(g, RS_METHOD_GPSPM);
	g->ctx.data.rkey = g->ctx.key = 0x4242;
	post_batches(g, 3, 100);
	for (unsigned k = 0; k < 3; k++) {
		data_write_is(g, k, &g->ctx.data, g->batch[k].offset);
		assert_int_equal(g->chain[k].msg.key, 0x4242);
	}
	rig_teardown(0);
	start(g, RS_METHOD_STAGED);
	g->ctx.key = 0x4242;
	post_batches(g, 1, 100);
	assert_int_equal(g->chain[0].msg.key, 0);
}

/* A gpspm batch its replica posts as a lone commit says so (RS_MSG_LONE),
 * others do not, and a staged commit never does. */
static void gpspm_says_a_lone_commit(void **state)
{
	struct rig *g = &rig;
	(void)state;
	start(g, RS_METHOD_GPSPM);
	g->ctx.key = 0x4242;
	g->ctx.lone = true;
	post_batches(g, 1, 100);
	assert_int_equal(g->chain[0].msg.flags, RS_MSG_LONE);
	g->ctx.lone = false;
	post_one(g, 100, 'b');
	assert_int_equal(g->posts, 2);
	assert_int_equal(g->chain[1].msg.flags, 0);
	rig_teardown(0);
	start(g, RS_METHOD_STAGED);
	g->ctx.lone = true;
	post_batches(g, 1, 100);
	assert_int_equal(g->chain[0].msg.flags, 0);
}

/* A log that rotated: its pool starts at a later log position, so each
 * batch goes that much lower in the pool, and a reply's offset comes back
 * as a position. */
static void positions_after_a_rotation_map_into_the_pool(void **state)
{
	struct rig *g = &rig;
	(void)state;
	const uint64_t base = REMOTE_USED - 1000;
	for (int id = RS_METHOD_APM; id <= RS_METHOD_STAGED; id++) {
		rig_teardown(0);
		start(g, (enum rs_method)id);
		g->ctx.pos_base = base;
		post_batches(g, 2, 100);
		const struct window_batch *b = &g->batch[1];
		uint64_t in_pool = b->offset - base;
		assert_int_equal(in_pool, 1100);
		if (id != RS_METHOD_STAGED)
			data_write_is(g, 1, &g->ctx.data, in_pool);
		if (id == RS_METHOD_APM) {
			uint64_t word = le64toh(g->words[2 * (b->seq % DEPTH)]);
			assert_int_equal(word, LOG_START + in_pool + 100);
			continue;
		}
		assert_int_equal(g->chain[1].msg.offset, LOG_START + in_pool);
		struct rs_msg done = {.type = RS_MSG_COMMIT_DONE,
				      .seq = b->seq,
				      .offset = LOG_START + in_pool + 100};
		struct method_event ev = {.op = RS_OP_RECV, .msg = &done};
		struct method_confirm out;
		struct rs_error err = {0};
		assert_int_equal(g->method->take(&g->ctx, &ev, &out, &err), 1);
		assert_int_equal(out.offset, b->offset + 100);
	}
}

static void staged_writes_its_staging_slot_then_asks(void **state)
{
	struct rig *g = &rig;
	(void)state;
	start(g, RS_METHOD_STAGED);
	post_batches(g, 7, 100);
	for (unsigned k = 0; k < 7; k++) {
		uint64_t ring_offset =
		    (uint64_t)(g->batch[k].seq % DEPTH) * STAGING_SLOT;
		data_write_is(g, k, &g->grant.staging, ring_offset);
		request_is(g, k, RS_MSG_STAGED_COMMIT, ring_offset);
	}
}

/* Data write, flush read, the fenced write of the new offset from the
 * slot's words, and the read that makes it persistent: the only one
 * signaled, its wr_id the batch. */
static void apm_writes_reads_and_fences(void **state)
{
	struct rig *g = &rig;
	(void)state;
	start(g, RS_METHOD_APM);
	assert_int_equal(g->method->words_per_slot, 16);
	post_batches(g, 7, 100);
	const struct rs_mr_desc *word = &g->grant.write_offset;
	for (unsigned k = 0; k < 7; k++) {
		const struct send_chain *c = &g->chain[k];
		const struct window_batch *b = &g->batch[k];
		size_t at = (b->seq % DEPTH) * 16;
		assert_int_equal(c->n, 4);
		data_write_is(g, k, &g->ctx.data, b->offset);
		wr_is(&c->wr[1], CHAIN_READ, word, 0, CHAIN_WORDS, at + 8, 8);
		assert_int_equal(c->wr[1].flags, RS_POST_MORE);
		wr_is(&c->wr[2], CHAIN_WRITE, word, 0, CHAIN_WORDS, at, 8);
		assert_int_equal(c->wr[2].flags, RS_POST_FENCE | RS_POST_MORE);
		wr_is(&c->wr[3], CHAIN_READ, word, 0, CHAIN_WORDS, at + 8, 8);
		assert_int_equal(c->wr[3].flags, RS_POST_SIGNALED);
		assert_int_equal(c->wr[3].wr_id, b->seq);
	}
	/* Each slot's word holds the end of the last batch posted in it. */
	for (unsigned k = 3; k < 7; k++) {
		const struct window_batch *b = &g->batch[k];
		assert_int_equal(le64toh(g->words[(b->seq % DEPTH) * 2]),
				 LOG_START + b->offset + b->length);
	}
}

#define FLUSH_DATA_DONE (1ull << 32) /* flush.c's data flush wr_id bit */

/* The ATOMIC WRITE of batch b's offset from its slot's word (with flags
 * beside RS_POST_MORE), then the FLUSH of that word, signaled, its wr_id
 * the batch. */
static void offset_stored(const struct rig *g, const struct chain_wr *wr,
			  const struct window_batch *b, unsigned flags)
{
	const struct rs_mr_desc *word = &g->grant.write_offset;
	size_t at = (b->seq % DEPTH) * 8;
	wr_is(&wr[0], CHAIN_ATOMIC_WRITE, word, 0, CHAIN_WORDS, at, 8);
	assert_int_equal(wr[0].flags, flags | RS_POST_MORE);
	assert_int_equal(wr[1].op, CHAIN_FLUSH);
	assert_ptr_equal(wr[1].remote, word);
	assert_int_equal(wr[1].remote_offset, 0);
	assert_int_equal(wr[1].len, 8);
	assert_int_equal(wr[1].flags, RS_POST_SIGNALED);
	assert_int_equal(wr[1].wr_id, b->seq);
	assert_int_equal(le64toh(g->words[b->seq % DEPTH]),
			 LOG_START + b->offset + b->length);
}

/* A batch alone in flight posts all four at once: the data write, its
 * FLUSH (unsignaled), the ATOMIC WRITE of the offset fenced behind that
 * flush's answer, and the FLUSH of the offset: one wake-up per commit. */
static void flush_alone_fences_the_offset_behind_its_flush(void **state)
{
	struct rig *g = &rig;
	(void)state;
	start(g, RS_METHOD_FLUSH);
	for (unsigned k = 0; k < 3; k++) {
		post_one(g, 100, 'a'); /* alone: the one before confirmed */
		assert_int_equal(g->posts, k + 1);
		const struct send_chain *c = &g->chain[k];
		const struct window_batch *b = &g->batch[k];
		assert_int_equal(c->n, 4);
		data_write_is(g, k, &g->ctx.data, b->offset);
		assert_int_equal(c->wr[1].op, CHAIN_FLUSH);
		assert_int_equal(c->wr[1].remote_offset,
				 c->wr[0].remote_offset);
		assert_int_equal(c->wr[1].len, b->length);
		assert_int_equal(c->wr[1].flags, RS_POST_MORE);
		offset_stored(g, &c->wr[2], b, RS_POST_FENCE);
		assert_int_equal(
		    window_confirmed(g->w, 0, b->seq, b->offset + b->length),
		    0);
	}
}

/* A batch behind others goes in two halves, not to hold them behind a
 * fence: the data write and an RDMA FLUSH of it (signaled, its wr_id the
 * batch with the data bit); once that flush completes, the ATOMIC WRITE
 * of the new offset from the slot's word and the FLUSH of that word
 * (signaled, its wr_id the batch), unfenced. */
static void flush_writes_then_stores_the_offset(void **state)
{
	struct rig *g = &rig;
	(void)state;
	start(g, RS_METHOD_FLUSH);
	assert_int_equal(g->method->words_per_slot, 8);
	post_batches(g, 7, 100);
	assert_int_equal(g->chain[0].n, 4); /* the first went alone */
	for (unsigned k = 1; k < 7; k++) {
		const struct send_chain *c = &g->chain[k];
		const struct window_batch *b = &g->batch[k];
		assert_int_equal(c->n, 2);
		data_write_is(g, k, &g->ctx.data, b->offset);
		assert_int_equal(c->wr[1].op, CHAIN_FLUSH);
		assert_ptr_equal(c->wr[1].remote, &g->ctx.data);
		assert_int_equal(c->wr[1].remote_offset,
				 c->wr[0].remote_offset);
		assert_int_equal(c->wr[1].len, b->length);
		assert_int_equal(c->wr[1].flags, RS_POST_SIGNALED);
		assert_int_equal(c->wr[1].wr_id, FLUSH_DATA_DONE | b->seq);
	}
	/* the batches still in flight: each data flush's completion brings
	 * the offset's half */
	for (unsigned k = 3; k < 7; k++) {
		const struct window_batch *b = &g->batch[k];
		struct method_event ev = {.op = RS_OP_FLUSH,
					  .wr_id = FLUSH_DATA_DONE | b->seq};
		struct send_chain c = {.n = 0};
		g->method->then(&g->ctx, &ev, &c);
		assert_int_equal(c.n, 2);
		offset_stored(g, c.wr, b, 0);
	}
	/* nothing follows the offset's flush, or anything else */
	const enum rs_op ops[] = {RS_OP_FLUSH, RS_OP_READ, RS_OP_WRITE};
	for (size_t i = 0; i < 3; i++) {
		struct method_event ev = {.op = ops[i],
					  .wr_id = g->batch[6].seq};
		struct send_chain c = {.n = 0};
		g->method->then(&g->ctx, &ev, &c);
		assert_int_equal(c.n, 0);
	}
	/* the other methods have no second half */
	assert_null(send_method_of(RS_METHOD_APM)->then);
	assert_null(send_method_of(RS_METHOD_GPSPM)->then);
	assert_null(send_method_of(RS_METHOD_STAGED)->then);
}

/* ---- what each takes as a confirmation ---- */

static int take(const struct rig *g, enum rs_op op, uint64_t wr_id,
		const struct rs_msg *msg, struct method_confirm *out,
		struct rs_error *err)
{
	struct method_event ev = {.op = op, .wr_id = wr_id, .msg = msg};
	return g->method->take(&g->ctx, &ev, out, err);
}

static void replies_confirm(struct rig *g, enum rs_method id)
{
	start(g, id);
	struct method_confirm out = {0};
	struct rs_error err = {0};
	struct rs_msg done = {.type = RS_MSG_COMMIT_DONE,
			      .status = RS_MSG_OK,
			      .seq = 5,
			      .offset = LOG_START + 4096};
	assert_int_equal(take(g, RS_OP_RECV, 0, &done, &out, &err), 1);
	assert_int_equal(out.seq, 5);
	assert_int_equal(out.offset, 4096);
	/* Nothing else this method posts confirms a batch. */
	assert_int_equal(take(g, RS_OP_READ, 5, 0, &out, &err), 0);
	assert_int_equal(take(g, RS_OP_SEND, 5, 0, &out, &err), 0);
	assert_int_equal(take(g, RS_OP_WRITE, 5, 0, &out, &err), 0);
	/* Not where the log ends: commits before it were lost on the way,
	 * a lost session (taken up again under --retry), not a refusal. */
	done.status = RS_MSG_NOT_CONTIGUOUS;
	assert_int_equal(take(g, RS_OP_RECV, 0, &done, &out, &err), RS_E_LOST);
	char refused[256];
	snprintf(refused, sizeof(refused),
		 "refused batch 5: %s (the log ends at offset %llu): the "
		 "commits before it did not reach the receiver",
		 rs_msg_status_str(RS_MSG_NOT_CONTIGUOUS),
		 (unsigned long long)(LOG_START + 4096));
	assert_string_equal(err.msg, refused);
	done.status = RS_MSG_OUT_OF_RANGE;
	assert_int_equal(take(g, RS_OP_RECV, 0, &done, &out, &err),
			 RS_E_REJECTED);
	snprintf(refused, sizeof(refused), "refused batch 5: %s",
		 rs_msg_status_str(RS_MSG_OUT_OF_RANGE));
	assert_string_equal(err.msg, refused);
	struct rs_msg other = {.type = RS_MSG_HASH_DONE, .seq = 5};
	assert_int_equal(take(g, RS_OP_RECV, 0, &other, &out, &err),
			 RS_E_MALFORMED);
	assert_string_equal(err.msg, "unexpected message type");
}

static void gpspm_takes_the_commit_reply(void **state)
{
	(void)state;
	replies_confirm(&rig, RS_METHOD_GPSPM);
}

static void staged_takes_the_commit_reply(void **state)
{
	(void)state;
	replies_confirm(&rig, RS_METHOD_STAGED);
}

/* APM's last read confirms its batch: the log ends at the batch's end. */
static void apm_takes_the_last_read(void **state)
{
	struct rig *g = &rig;
	(void)state;
	start(g, RS_METHOD_APM);
	post_batches(g, 3, 100);
	struct method_confirm out = {0};
	struct rs_error err = {0};
	for (unsigned k = 0; k < 3; k++) {
		const struct window_batch *b = &g->batch[k];
		assert_int_equal(take(g, RS_OP_READ, b->seq, 0, &out, &err), 1);
		assert_int_equal(out.seq, b->seq);
		assert_int_equal(out.offset, b->offset + b->length);
	}
	assert_int_equal(take(g, RS_OP_WRITE, 0, 0, &out, &err), 0);
	assert_int_equal(take(g, RS_OP_SEND, 0, 0, &out, &err), 0);
}

/* The offset's FLUSH confirms its batch; the data's does not. */
static void flush_takes_the_last_flush(void **state)
{
	struct rig *g = &rig;
	(void)state;
	start(g, RS_METHOD_FLUSH);
	post_batches(g, 3, 100);
	struct method_confirm out = {0};
	struct rs_error err = {0};
	for (unsigned k = 0; k < 3; k++) {
		const struct window_batch *b = &g->batch[k];
		assert_int_equal(take(g, RS_OP_FLUSH, FLUSH_DATA_DONE | b->seq,
				      0, &out, &err),
				 0);
		assert_int_equal(take(g, RS_OP_FLUSH, b->seq, 0, &out, &err),
				 1);
		assert_int_equal(out.seq, b->seq);
		assert_int_equal(out.offset, b->offset + b->length);
	}
	assert_int_equal(take(g, RS_OP_READ, 0, 0, &out, &err), 0);
	assert_int_equal(take(g, RS_OP_WRITE, 0, 0, &out, &err), 0);
}

#define T(f) cmocka_unit_test_teardown(f, rig_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_method_has_its_row),
	    T(gpspm_names_its_window_key),
	    T(gpspm_says_a_lone_commit),
	    cmocka_unit_test(choice_follows_the_offer),
	    cmocka_unit_test(method_not_offered_is_refused),
	    cmocka_unit_test(flush_that_cannot_be_posted_is_said),
	    cmocka_unit_test(offered_is_the_methods_bit),
	    cmocka_unit_test(staged_batches_fit_a_staging_slot),
	    T(gpspm_writes_in_place_then_asks),
	    T(positions_after_a_rotation_map_into_the_pool),
	    T(staged_writes_its_staging_slot_then_asks),
	    T(apm_writes_reads_and_fences),
	    T(gpspm_takes_the_commit_reply),
	    T(staged_takes_the_commit_reply),
	    T(apm_takes_the_last_read),
	    T(flush_alone_fences_the_offset_behind_its_flush),
	    T(flush_writes_then_stores_the_offset),
	    T(flush_takes_the_last_flush),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
