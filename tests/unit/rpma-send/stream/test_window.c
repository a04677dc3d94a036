/* The sender's batch window against a fake link: up to three fake
 * receivers, each with its own log, that take the batches posted to them,
 * commit them when told and forget what was in flight when their link
 * drops. Whatever is lost, resent or dropped, every log still in the
 * stream must end up holding the input exactly once and in order, a
 * batch may be reported committed only once k logs really hold it, and
 * no receiver is ever posted more than depth batches it has not
 * committed (its credits), however many the ring holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "stream/window.h"

#include <stdlib.h>
#include <string.h>

#define LOG_START 8192u
#define LOG_SIZE (64u * 1024)
#define REPLICAS 3
#define QUEUE 64
#define ALL ((1u << REPLICAS) - 1)
#define FIRST_TWO 3u /* replicas 0 and 1 */

struct receiver {
	uint8_t log[LOG_START + LOG_SIZE];
	uint64_t end;			   /* its log's committed end */
	struct window_batch posted[QUEUE]; /* written, not yet committed */
	unsigned nposted;
	unsigned most;	   /* the most nposted ever was */
	unsigned posts;	   /* posts taken */
	unsigned attempts; /* posts tried, taken or not */
	bool down;	   /* posting fails */
	/* Where its writer's key reaches, 0: anywhere. A batch past it is
	 * put off while others are in flight (their confirmations bring a
	 * key reaching further); with none, the writer asks for room. */
	uint64_t reach;
	unsigned later; /* posts put off */
	/* As a windowed replica: a batch alone in flight with nothing more
	 * waiting goes as a lone commit, and nothing follows it until its
	 * confirmation. */
	bool lone_rule, lone_in_flight;
	unsigned lone_posts;
};

struct rig {
	struct send_window *w;
	struct receiver r[REPLICAS];
	unsigned committed_calls;
	uint64_t committed_end; /* where the next committed batch must start */
};

static uint64_t end_of(const struct window_batch *b)
{
	return b->offset + b->length;
}

static int fake_post(void *ctx, unsigned i, struct window_batch *b)
{
	struct rig *g = ctx;
	assert_true(i < window_quorum(g->w)->n);
	struct receiver *r = &g->r[i];
	r->attempts++;
	if (r->down) {
		r->nposted = 0; /* a dead link delivers nothing more */
		return -1;
	}
	if (r->lone_rule && r->lone_in_flight) {
		r->later++;
		return WINDOW_POST_LATER;
	}
	if (r->lone_rule && window_inflight_of(g->w, i) == 1 &&
	    !window_more_waiting(g->w, i)) {
		r->lone_in_flight = true;
		r->lone_posts++;
	}
	if (r->reach && end_of(b) > r->reach) {
		if (window_inflight_of(g->w, i) > 1) {
			r->later++;
			return WINDOW_POST_LATER;
		}
		r->reach = end_of(b); /* asked for room */
	}
	/* A replica is posted its log's continuation: no gap, no batch
	 * twice, whatever was lost and resent before. */
	uint64_t expect =
	    r->nposted ? end_of(&r->posted[r->nposted - 1]) : r->end;
	assert_int_equal(b->offset, expect);
	assert_true(b->length > 0);
	assert_true(r->nposted < QUEUE);
	/* Within its credits, as the receiver and the window count. */
	assert_true(r->nposted < window_depth(g->w));
	assert_true(window_inflight_of(g->w, i) <= window_depth(g->w));
	r->posted[r->nposted++] = *b;
	if (r->nposted > r->most)
		r->most = r->nposted;
	r->posts++;
	return 0;
}

/* How many logs hold b's bytes at b's place. */
static unsigned holders(const struct rig *g, const struct window_batch *b)
{
	unsigned n = 0;
	for (unsigned i = 0; i < window_quorum(g->w)->n; i++) {
		const struct receiver *r = &g->r[i];
		n += r->end >= end_of(b) &&
		     memcmp(r->log + b->offset, b->data, b->length) == 0;
	}
	return n;
}

static void fake_committed(void *ctx, const struct window_batch *b)
{
	struct rig *g = ctx;
	/* Every batch once, in order, and only what the rule's k logs
	 * really hold. */
	assert_int_equal(b->seq, g->committed_calls);
	assert_int_equal(b->offset, g->committed_end);
	assert_true(holders(g, b) >= window_quorum(g->w)->k);
	g->committed_calls++;
	g->committed_end = end_of(b);
}

/* The rig lives on the heap (three 72 KiB logs) and is freed even when
 * a test fails half way. */
static int rig_setup(void **state)
{
	struct rig *g = calloc(1, sizeof(*g));
	*state = g;
	return g ? 0 : -1;
}

static int rig_teardown(void **state)
{
	struct rig *g = *state;
	window_delete(g->w);
	free(g);
	return 0;
}

/* n replicas, k needed, logs of size bytes all starting at LOG_START. */
static struct send_window *start(struct rig *g, unsigned n, unsigned k,
				 uint16_t depth, uint32_t batch, uint64_t size)
{
	for (unsigned i = 0; i < REPLICAS; i++)
		g->r[i].end = LOG_START;
	g->committed_end = LOG_START;
	struct window_link link = {g, fake_post, fake_committed};
	g->w = window_new(&link);
	assert_non_null(g->w);
	assert_int_equal(window_state(g->w), WINDOW_CONNECTING);
	assert_int_equal(window_connected(g->w, n, k, depth, batch, LOG_START,
					  LOG_START + size),
			 0);
	assert_int_equal(window_state(g->w), WINDOW_STREAMING);
	return g->w;
}

static void pattern(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + i / 251);
}

/* Feeds input into the window as far as it takes it. */
static size_t feed(struct send_window *w, const uint8_t *in, size_t len)
{
	size_t done = 0;
	uint32_t room;
	uint8_t *space;
	while (done < len && (space = window_space(w, &room)) && room > 0) {
		uint32_t n = len - done < room ? (uint32_t)(len - done) : room;
		memcpy(space, in + done, n);
		window_filled(w, n, 0);
		done += n;
	}
	return done;
}

/* The receiver commits the oldest batch posted to it: its log grows. */
static struct window_batch receive(struct receiver *r)
{
	assert_true(r->nposted > 0);
	struct window_batch b = r->posted[0];
	memmove(r->posted, r->posted + 1, --r->nposted * sizeof(b));
	assert_int_equal(b.offset, r->end); /* contiguous appends */
	memcpy(r->log + b.offset, b.data, b.length);
	r->end = end_of(&b);
	return b;
}

/* Receiver i commits its oldest posted batch and the window is told. */
static void commit_one(struct rig *g, unsigned i)
{
	g->r[i].lone_in_flight = false; /* its reply came */
	struct window_batch b = receive(&g->r[i]);
	assert_int_equal(window_confirmed(g->w, i, b.seq, g->r[i].end), 0);
}

static void commit_all(struct rig *g, unsigned i)
{
	while (g->r[i].nposted)
		commit_one(g, i);
}

/* Each replica in mask with a batch posted commits its oldest one.
 * Returns how many did. */
static unsigned commit_round(struct rig *g, unsigned mask)
{
	unsigned n = 0;
	for (unsigned i = 0; i < window_quorum(g->w)->n; i++)
		if ((mask >> i & 1) && g->r[i].nposted) {
			commit_one(g, i);
			n++;
		}
	return n;
}

/* Feeds in[from, len) and ends the input, the replicas in mask
 * committing whenever the window takes no more; then they drain it. */
static void stream(struct rig *g, const uint8_t *in, size_t from, size_t len,
		   unsigned mask)
{
	while (from < len) {
		from += feed(g->w, in + from, len - from);
		assert_true(window_inflight(g->w) <= window_slots(g->w));
		if (from < len) /* else the window is stuck */
			assert_true(commit_round(g, mask) > 0);
	}
	window_input_end(g->w, 0);
	while (commit_round(g, mask))
		;
}

/* Link i drops: what was posted is forgotten, but the receiver may
 * already have committed `keep` of those batches, their confirmations
 * lost with the link. */
static void link_drops(struct rig *g, unsigned i, unsigned keep)
{
	struct receiver *r = &g->r[i];
	assert_true(keep <= r->nposted);
	for (unsigned n = 0; n < keep; n++)
		receive(r);
	r->nposted = 0;
	window_lost(g->w, i);
	assert_int_equal(quorum_replica_state(window_quorum(g->w), i),
			 REPLICA_LOST);
	assert_int_equal(window_inflight_of(g->w, i), 0);
}

/* Replica i is back; its log ends where its receiver committed. */
static enum window_rejoin rejoin(struct rig *g, unsigned i)
{
	return window_rejoined(g->w, i, g->r[i].end);
}

static void log_is(const struct rig *g, unsigned i, const uint8_t *in,
		   size_t len)
{
	assert_int_equal(g->r[i].end, LOG_START + len);
	assert_memory_equal(g->r[i].log + LOG_START, in, len);
}

static void state_is(const struct rig *g, unsigned i, enum replica_state s)
{
	assert_string_equal(
	    quorum_state_name(quorum_replica_state(window_quorum(g->w), i)),
	    quorum_state_name(s));
}

static bool space_free(struct send_window *w)
{
	uint32_t room;
	return window_space(w, &room) != NULL;
}

static unsigned holding_the_commit(const struct send_window *w)
{
	return quorum_count_at(window_quorum(w),
			       quorum_committed(window_quorum(w)));
}

/* Rules the quorum cannot meet, and a ring of no slots, are refused
 * before anything is allocated or posted. */
static void connect_refuses_bad_rules(void **state)
{
	struct rig *g = *state;
	struct window_link link = {g, fake_post, fake_committed};
	g->w = window_new(&link);
	assert_non_null(g->w);
	struct send_window *w = g->w;
	uint64_t end = LOG_START + LOG_SIZE;
	assert_int_equal(window_connected(w, 3, 0, 4, 100, LOG_START, end),
			 RS_E_INVAL);
	assert_int_equal(window_connected(w, 2, 3, 4, 100, LOG_START, end),
			 RS_E_INVAL);
	assert_int_equal(window_connected(w, SEND_REPLICAS_MAX + 1, 1, 4, 100,
					  LOG_START, end),
			 RS_E_INVAL);
	assert_int_equal(window_connected(w, 1, 1, 0, 100, LOG_START, end),
			 RS_E_INVAL);
	assert_int_equal(window_state(w), WINDOW_CONNECTING);
	size_t ring_len;
	assert_null(window_ring(w, &ring_len));
	assert_false(space_free(w));
}

/* ---- one replica ---- */

static void streams_in_order_and_drains(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 1000, LOG_SIZE);
	static uint8_t in[10000];
	pattern(in, sizeof(in));
	size_t sent = 0;
	while (sent < sizeof(in)) {
		sent += feed(w, in + sent, sizeof(in) - sent);
		assert_true(window_inflight(w) <= 4);
		if (sent < sizeof(in)) /* full: a confirmation frees a slot */
			commit_one(g, 0);
	}
	window_input_end(w, 0);
	assert_int_equal(window_state(w), WINDOW_DRAINING);
	commit_all(g, 0);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	assert_int_equal(window_committed_input(w), sizeof(in));
	log_is(g, 0, in, sizeof(in));
	assert_int_equal(g->committed_calls, 10);
	assert_int_equal(g->r[0].posts, 10);
}

/* A batch past where the writer's key reaches waits for a confirmation
 * (the next key reaches further), then goes, in order; with nothing else
 * in flight it is posted at once (the replica asked for room). */
static void a_batch_past_the_reach_waits(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 1000, LOG_SIZE);
	g->r[0].reach = LOG_START + 2500;
	static uint8_t in[10000];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 4000), 4000);
	assert_int_equal(g->r[0].posts, 2); /* the third ends past 2500 */
	assert_true(g->r[0].later >= 1);
	assert_int_equal(window_inflight_of(w, 0), 2);
	g->r[0].reach = LOG_START + 6000; /* the confirmation's new key */
	commit_one(g, 0);
	assert_int_equal(g->r[0].posts, 4);
	/* the rest: each batch past the reach waits until it goes alone,
	 * and asks for room */
	stream(g, in, 4000, sizeof(in), 1);
	assert_int_equal(window_state(w), WINDOW_DONE);
	log_is(g, 0, in, sizeof(in));
	assert_int_equal(g->committed_calls, 10);
	assert_int_equal(g->r[0].posts, 10);
}

/* A lone commit (nothing else in flight, nothing waiting) holds what
 * comes after it until its confirmation; what goes while more waits is no
 * lone commit, and the stream pipelines again. */
static void a_lone_commit_holds_the_next_until_confirmed(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 1000, LOG_SIZE);
	g->r[0].lone_rule = true;
	static uint8_t in[3500];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 1000), 1000);
	assert_int_equal(g->r[0].posts, 1);
	assert_int_equal(g->r[0].lone_posts, 1);
	assert_false(window_more_waiting(w, 0));
	assert_int_equal(feed(w, in + 1000, 2500), 2500);
	assert_int_equal(g->r[0].posts, 1); /* two batches held behind it */
	assert_true(window_more_waiting(w, 0));
	commit_one(g, 0);
	assert_int_equal(g->r[0].posts, 3);
	assert_int_equal(g->r[0].lone_posts, 1); /* more waited for both */
	commit_all(g, 0);
	window_flush(w, 0); /* the last 500 bytes, alone again */
	assert_int_equal(g->r[0].lone_posts, 2);
	window_input_end(w, 0);
	commit_all(g, 0);
	assert_int_equal(window_state(w), WINDOW_DONE);
	log_is(g, 0, in, sizeof(in));
}

static void partial_batch_is_flushed(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 2, 4096, LOG_SIZE);
	uint8_t line[64];
	pattern(line, sizeof(line));
	assert_int_equal(feed(w, line, sizeof(line)), sizeof(line));
	assert_int_equal(g->r[0].posts, 0); /* still filling */
	window_flush(w, 0);		    /* the input went idle */
	assert_int_equal(g->r[0].posts, 1);
	assert_int_equal(g->r[0].posted[0].length, sizeof(line));
	commit_one(g, 0);
	assert_int_equal(window_committed_input(w), sizeof(line));
	assert_int_equal(g->committed_calls, 1);
	window_input_end(w, 0); /* nothing left in flight */
	assert_int_equal(window_state(w), WINDOW_DONE);
	log_is(g, 0, line, sizeof(line));
}

static void full_log_takes_no_more(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 1000, 2500);
	uint8_t in[4000];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, sizeof(in)), 2500);
	assert_true(window_log_full(w));
	uint32_t room = 1;
	assert_non_null(window_space(w, &room));
	assert_int_equal(room, 0);
	assert_int_equal(g->r[0].posts, 3); /* 1000, 1000 and the last 500 */
	assert_int_equal(g->r[0].posted[2].length, 500);
	commit_all(g, 0);
	window_input_end(w, 0);
	assert_int_equal(window_state(w), WINDOW_DONE);
	log_is(g, 0, in, 2500);
}

/* A full pool that rotated: the smallest replica's log ends further, and
 * the window takes input again, from where it was; an end that would cut
 * into what it holds is ignored. */
static void set_end_makes_room_again(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 1000, 2500);
	uint8_t in[6000];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, sizeof(in)), 2500);
	assert_true(window_log_full(w));
	commit_all(g, 0);
	window_set_end(w, LOG_START + 2000); /* before what it holds */
	assert_true(window_log_full(w));
	window_set_end(w, LOG_START + 5000);
	assert_false(window_log_full(w));
	assert_int_equal(feed(w, in + 2500, sizeof(in) - 2500), 2500);
	commit_all(g, 0);
	window_input_end(w, 0);
	assert_int_equal(window_state(w), WINDOW_DONE);
	log_is(g, 0, in, 5000);
}

/* Lost with batches in flight, some of which the receiver had committed
 * without the window hearing of it: the rejoin counts those as confirmed
 * and exactly the others are posted again. */
static void rejoin_resends_the_uncommitted_tail(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 1000, LOG_SIZE);
	uint8_t in[6000];
	pattern(in, sizeof(in));
	size_t sent = feed(w, in, sizeof(in));
	assert_int_equal(sent, 4000); /* four batches in flight */
	commit_one(g, 0);	      /* batch 0 confirmed */
	link_drops(g, 0, 2);	      /* 1 and 2 committed, unconfirmed */
	assert_int_equal(window_state(w), WINDOW_STREAMING);
	/* Batch 0's slot is free: the window takes input while the
	 * replica is away, the ring holds its gap 1..3. */
	assert_int_equal(window_inflight(w), 3);
	assert_true(space_free(w));
	assert_int_equal(window_committed_input(w), 1000);

	unsigned before = g->r[0].posts;
	assert_int_equal(rejoin(g, 0), WINDOW_REJOINED);
	state_is(g, 0, REPLICA_ACTIVE);
	assert_int_equal(window_committed_input(w), 3000);
	assert_int_equal(g->committed_calls, 3);
	assert_int_equal(g->r[0].posts - before, 1); /* only batch 3 again */
	assert_int_equal(g->r[0].posted[0].offset, LOG_START + 3000);
	assert_int_equal(window_inflight_of(w, 0), 1);

	stream(g, in, sent, sizeof(in), 1);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_committed_input(w), sizeof(in));
	assert_int_equal(g->committed_calls, 6);
	log_is(g, 0, in, sizeof(in)); /* every byte once */
}

/* Lost with nothing committed beyond what was confirmed: everything in
 * flight is posted again. */
static void rejoin_at_confirmed_resends_all_in_flight(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 1000, LOG_SIZE);
	uint8_t in[3000];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, sizeof(in)), sizeof(in));
	commit_one(g, 0);
	link_drops(g, 0, 0);
	unsigned before = g->r[0].posts;
	assert_int_equal(rejoin(g, 0), WINDOW_REJOINED);
	assert_int_equal(g->r[0].posts - before, 2); /* batches 1 and 2 */
	assert_int_equal(g->committed_calls, 1);
	assert_int_equal(window_committed_input(w), 1000);
	stream(g, in, sizeof(in), sizeof(in), 1);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(g->committed_calls, 3);
	log_is(g, 0, in, sizeof(in));
}

/* The input ends while the replica is lost: the ring keeps taking input
 * while it has room, and the window drains once the replica is back. A
 * post that fails counts as a lost link. */
static void input_ends_while_lost(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 2, 100, LOG_SIZE);
	uint8_t in[150];
	pattern(in, sizeof(in));
	g->r[0].down = true;
	assert_int_equal(feed(w, in, 100), 100); /* the post fails */
	state_is(g, 0, REPLICA_LOST);
	assert_int_equal(feed(w, in + 100, 50), 50);
	window_input_end(w, 0);
	assert_int_equal(window_state(w), WINDOW_DRAINING);
	assert_int_equal(g->r[0].attempts, 1); /* not posted while lost */

	g->r[0].down = false;
	assert_int_equal(rejoin(g, 0), WINDOW_REJOINED);
	assert_int_equal(window_state(w), WINDOW_DRAINING);
	assert_int_equal(g->r[0].posts, 2);
	commit_one(g, 0);
	assert_int_equal(window_state(w), WINDOW_DRAINING);
	commit_one(g, 0);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	assert_int_equal(window_committed_input(w), sizeof(in));
	log_is(g, 0, in, sizeof(in));
}

/* Draining, lost after the receiver committed everything: the rejoin
 * alone finishes the stream, nothing is posted again. */
static void rejoin_with_everything_committed_finishes(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 100, LOG_SIZE);
	uint8_t in[200];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, sizeof(in)), sizeof(in));
	window_input_end(w, 0);
	assert_int_equal(window_state(w), WINDOW_DRAINING);
	link_drops(g, 0, 2);
	assert_int_equal(window_state(w), WINDOW_DRAINING);
	assert_int_equal(rejoin(g, 0), WINDOW_REJOINED);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	assert_int_equal(g->committed_calls, 2);
	assert_int_equal(g->r[0].posts, 2);
	log_is(g, 0, in, sizeof(in));
}

/* ---- confirmations ---- */

/* Anything but the oldest batch posted to i, ending where it ends, is
 * refused and changes nothing. */
static void confirmation_out_of_order_is_refused(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 2, 2, 4, 100, LOG_SIZE);
	uint8_t in[300];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, sizeof(in)), sizeof(in));
	assert_int_equal(window_confirmed(w, 0, 1, LOG_START + 200),
			 RS_E_MALFORMED);
	assert_int_equal(window_confirmed(w, 0, 0, LOG_START + 50),
			 RS_E_MALFORMED);
	assert_int_equal(window_confirmed(w, 0, 0, LOG_START + 200),
			 RS_E_MALFORMED);
	assert_int_equal(window_confirmed(w, 0, 3, LOG_START + 400),
			 RS_E_MALFORMED);
	assert_int_equal(window_state(w), WINDOW_STREAMING);
	assert_int_equal(window_error(w), WINDOW_OK);
	assert_int_equal(window_replica_input(w, 0), 0);
	assert_int_equal(window_inflight_of(w, 0), 3);
	assert_int_equal(window_oldest_of(w, 0)->seq, 0);
	state_is(g, 0, REPLICA_ACTIVE);

	commit_one(g, 0); /* the one due is taken */
	commit_one(g, 1);
	assert_int_equal(g->committed_calls, 1);
	/* The same confirmation again, and one with nothing in flight. */
	assert_int_equal(window_confirmed(w, 1, 0, LOG_START + 100),
			 RS_E_MALFORMED);
	commit_all(g, 0);
	assert_int_equal(window_confirmed(w, 0, 2, LOG_START + 300),
			 RS_E_MALFORMED);
	assert_int_equal(window_replica_input(w, 0), 300);
	assert_int_equal(window_committed_input(w), 100);
	assert_int_equal(g->committed_calls, 1);
	commit_all(g, 1);
	assert_int_equal(window_committed_input(w), 300);
}

/* A confirmation that arrives after the loss was reported is ignored;
 * the rejoin at the receiver's log counts the batch. */
static void straggler_after_a_loss_is_ignored(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 100, LOG_SIZE);
	uint8_t in[400];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 200), 200);
	struct window_batch b = receive(&g->r[0]);
	link_drops(g, 0, 0);
	assert_int_equal(window_confirmed(w, 0, b.seq, g->r[0].end), 0);
	assert_int_equal(window_committed_input(w), 0);
	assert_int_equal(g->committed_calls, 0);
	state_is(g, 0, REPLICA_LOST);
	assert_int_equal(rejoin(g, 0), WINDOW_REJOINED);
	assert_int_equal(window_committed_input(w), 100);
	assert_int_equal(g->committed_calls, 1);
	stream(g, in, 200, sizeof(in), 1);
	assert_int_equal(window_state(w), WINDOW_DONE);
	log_is(g, 0, in, sizeof(in));
}

/* ---- rejoins refused ---- */

/* A log that ends inside a batch is not ours to fix: dropped, and with
 * it the only replica. */
static void rejoin_inside_a_batch_diverges(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 2, 100, LOG_SIZE);
	uint8_t in[200];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, sizeof(in)), sizeof(in));
	link_drops(g, 0, 0);
	assert_int_equal(window_rejoined(w, 0, LOG_START + 50),
			 WINDOW_DIVERGED);
	state_is(g, 0, REPLICA_DROPPED);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_TOO_FEW);
	assert_int_equal(g->r[0].posts, 2); /* nothing posted again */
	assert_int_equal(g->committed_calls, 0);
}

/* A log longer than anything sent diverged too; the other replica
 * carries the stream on. */
static void rejoin_past_the_stream_diverges(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 2, 1, 4, 100, LOG_SIZE);
	uint8_t in[500];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 200), 200);
	commit_one(g, 0);
	commit_one(g, 1);
	link_drops(g, 1, 0);
	assert_int_equal(window_rejoined(w, 1, LOG_START + 300),
			 WINDOW_DIVERGED);
	state_is(g, 1, REPLICA_DROPPED);
	assert_int_equal(window_state(w), WINDOW_STREAMING);
	assert_int_equal(window_error(w), WINDOW_OK);
	stream(g, in, 200, sizeof(in), 1);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	log_is(g, 0, in, sizeof(in));
	assert_int_equal(g->r[1].posts, 2);
	assert_int_equal(holding_the_commit(w), 1);
}

/* Back with less than it confirmed: not the log that confirmed. What
 * it helped commit stays committed. */
static void rejoin_below_confirmed_shrinks(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 1, 1, 4, 100, LOG_SIZE);
	uint8_t in[200];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, sizeof(in)), sizeof(in));
	commit_one(g, 0);
	link_drops(g, 0, 0);
	g->r[0].end = LOG_START; /* someone truncated it */
	assert_int_equal(rejoin(g, 0), WINDOW_SHRUNK);
	state_is(g, 0, REPLICA_DROPPED);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_TOO_FEW);
	assert_int_equal(window_committed_input(w), 100);
	assert_int_equal(g->committed_calls, 1);
	assert_int_equal(g->r[0].posts, 2);
}

/* A replica back with a shorter log than it confirmed is dropped at the
 * length its log has now, and no longer counts as holding the commit, so
 * the sender exits 7 and reports where it stopped. */
static void shrunk_replica_counts_what_it_holds(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 2, 1, 4, 100, LOG_SIZE);
	uint8_t in[200];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, sizeof(in)), sizeof(in));
	commit_all(g, 0);
	commit_all(g, 1);
	link_drops(g, 1, 0);
	g->r[1].end = LOG_START + 100; /* truncated to a batch boundary */
	assert_int_equal(rejoin(g, 1), WINDOW_SHRUNK);
	state_is(g, 1, REPLICA_DROPPED);
	window_input_end(w, 0);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	log_is(g, 0, in, sizeof(in));
	/* What the shrunk log holds now, and the commit on one log only. */
	assert_int_equal(window_replica_input(w, 1), 100);
	assert_int_equal(holding_the_commit(w), 1);
}

/* ---- three replicas ---- */

/* k = n = 3: nothing is committed, nor any slot freed, until the
 * slowest replica confirmed it. One credit each: the ring (4 slots)
 * holds what the fast ones were posted and confirmed one by one. */
static void all_three_must_confirm(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 3, 1, 100, LOG_SIZE);
	uint8_t in[500];
	pattern(in, sizeof(in));
	assert_int_equal(window_slots(w), 4);
	assert_int_equal(feed(w, in, sizeof(in)), 400); /* the ring is full */
	assert_int_equal(window_inflight(w), 4);
	assert_int_equal(window_inflight_of(w, 2), 1); /* its one credit */
	assert_false(space_free(w));
	commit_all(g, 0);
	commit_all(g, 1);
	assert_int_equal(g->committed_calls, 0);
	assert_int_equal(window_committed_input(w), 0);
	assert_int_equal(window_replica_input(w, 0), 400);
	assert_false(space_free(w));
	commit_one(g, 2);
	assert_int_equal(g->committed_calls, 1);
	assert_int_equal(window_inflight(w), 3);
	assert_true(space_free(w));
	commit_one(g, 2);
	assert_int_equal(g->committed_calls, 2);
	stream(g, in, 400, sizeof(in), ALL);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(g->committed_calls, 5);
	for (unsigned i = 0; i < 3; i++)
		log_is(g, i, in, sizeof(in));
	assert_int_equal(holding_the_commit(w), 3);
}

/* k = 2 of 3: two confirmations commit, but the slot waits for the
 * third; a lost replica pins the ring until, the ring full, it is
 * dropped as a laggard, and then it cannot come back. */
static void two_of_three_commit_and_a_laggard_is_dropped(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 2, 1, 100, LOG_SIZE);
	static uint8_t in[1000];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 100), 100);
	commit_one(g, 0);
	assert_int_equal(g->committed_calls, 0);
	commit_one(g, 1);
	assert_int_equal(g->committed_calls, 1);
	assert_int_equal(window_inflight(w), 1); /* replica 2 has it still */
	link_drops(g, 2, 0);

	size_t sent = 100 + feed(w, in + 100, sizeof(in) - 100);
	assert_int_equal(sent, 400); /* 4 slots */
	commit_all(g, 0);
	commit_all(g, 1);
	assert_int_equal(g->committed_calls, 4);
	assert_int_equal(window_committed_input(w), 400);
	assert_int_equal(window_inflight(w), 4); /* pinned by replica 2 */
	assert_false(space_free(w));
	assert_int_equal(g->r[2].attempts, 1); /* not posted while lost */

	assert_int_equal(window_drop_laggards(w), 1);
	state_is(g, 2, REPLICA_DROPPED);
	assert_int_equal(window_inflight(w), 0);
	assert_true(space_free(w));
	/* Its gap left the ring. */
	assert_int_equal(rejoin(g, 2), WINDOW_GAP_GONE);
	state_is(g, 2, REPLICA_DROPPED);

	stream(g, in, sent, sizeof(in), FIRST_TWO);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	assert_int_equal(g->committed_calls, 10);
	log_is(g, 0, in, sizeof(in));
	log_is(g, 1, in, sizeof(in));
	assert_int_equal(g->r[2].end, LOG_START);
	assert_int_equal(g->r[2].attempts, 1);
	assert_int_equal(holding_the_commit(w), 2);
}

/* Two replicas lost: the laggards go lowest first, and never below k. */
static void laggards_are_dropped_down_to_k(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 2, 1, 100, LOG_SIZE);
	uint8_t in[600];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 100), 100);
	commit_one(g, 0);
	commit_one(g, 1);
	link_drops(g, 2, 0); /* replica 2 holds nothing */
	assert_int_equal(feed(w, in + 100, 500), 300);
	link_drops(g, 1, 0); /* replica 1 holds batch 0 */
	commit_all(g, 0);
	assert_int_equal(window_committed_input(w), 100); /* 400, 100, 0 */
	assert_false(space_free(w));

	assert_int_equal(window_drop_laggards(w), 1);
	state_is(g, 2, REPLICA_DROPPED);
	state_is(g, 1, REPLICA_LOST);
	assert_int_equal(window_inflight(w), 3); /* batch 0 freed */
	assert_int_equal(feed(w, in + 400, 200), 100);
	assert_false(space_free(w));
	assert_int_equal(window_drop_laggards(w), 0); /* only k are left */
	state_is(g, 1, REPLICA_LOST);

	/* Its gap is batches 1..4: one posted now, on its one credit. */
	assert_int_equal(rejoin(g, 1), WINDOW_REJOINED);
	state_is(g, 1, REPLICA_CATCHING_UP);
	assert_int_equal(window_inflight_of(w, 1), 1);
	assert_int_equal(window_oldest_of(w, 1)->seq, 1);
	stream(g, in, 500, sizeof(in), FIRST_TWO);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	state_is(g, 1, REPLICA_ACTIVE);
	log_is(g, 0, in, sizeof(in));
	log_is(g, 1, in, sizeof(in));
	assert_int_equal(g->committed_calls, 6);
	assert_int_equal(holding_the_commit(w), 2);
}

/* A lost replica whose gap is still in the ring is resent it while the
 * stream goes on, and is active again once it caught up. */
static void lost_replica_catches_up_from_the_ring(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 2, 1, 100, LOG_SIZE);
	uint8_t in[800];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 200), 200);
	assert_int_equal(commit_round(g, ALL), 3); /* batch 0 everywhere */
	link_drops(g, 2, 0);			   /* batch 1 lost to it */
	commit_one(g, 0);
	commit_one(g, 1);
	assert_int_equal(g->committed_calls, 2);
	assert_int_equal(feed(w, in + 200, 600), 300);
	commit_all(g, 0);
	commit_all(g, 1);
	assert_int_equal(g->committed_calls, 5);
	assert_int_equal(window_inflight(w), 4); /* 1..4 for replica 2 */

	assert_int_equal(rejoin(g, 2), WINDOW_REJOINED);
	state_is(g, 2, REPLICA_CATCHING_UP);
	assert_int_equal(window_inflight_of(w, 2), 1); /* its one credit */
	assert_int_equal(window_oldest_of(w, 2)->seq, 1);
	commit_one(g, 2);
	state_is(g, 2, REPLICA_CATCHING_UP);
	assert_int_equal(window_inflight(w), 3);
	assert_int_equal(window_oldest_of(w, 2)->seq, 2);
	stream(g, in, 500, sizeof(in), ALL); /* new batches meanwhile */
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	state_is(g, 2, REPLICA_ACTIVE);
	for (unsigned i = 0; i < 3; i++)
		log_is(g, i, in, sizeof(in));
	assert_int_equal(g->committed_calls, 8);
	assert_int_equal(holding_the_commit(w), 3);
}

/* Lost again while catching up, after committing a batch it could not
 * confirm: the second rejoin resumes after that batch. */
static void lost_again_while_catching_up(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 2, 4, 100, LOG_SIZE);
	uint8_t in[600];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 300), 300);
	link_drops(g, 2, 0);
	commit_all(g, 0);
	commit_all(g, 1);
	assert_int_equal(g->committed_calls, 3);
	assert_int_equal(rejoin(g, 2), WINDOW_REJOINED);
	state_is(g, 2, REPLICA_CATCHING_UP);
	assert_int_equal(window_inflight_of(w, 2), 3);
	commit_one(g, 2);
	link_drops(g, 2, 1);
	assert_int_equal(window_replica_input(w, 2), 100);
	assert_int_equal(rejoin(g, 2), WINDOW_REJOINED);
	assert_int_equal(window_replica_input(w, 2), 200);
	state_is(g, 2, REPLICA_CATCHING_UP);
	assert_int_equal(window_inflight_of(w, 2), 1); /* batch 2 only */
	assert_int_equal(window_inflight(w), 1);
	stream(g, in, 300, sizeof(in), ALL);
	assert_int_equal(window_state(w), WINDOW_DONE);
	state_is(g, 2, REPLICA_ACTIVE);
	for (unsigned i = 0; i < 3; i++)
		log_is(g, i, in, sizeof(in));
	assert_int_equal(g->committed_calls, 6);
}

/* A dropped replica never rejoins, neither at a boundary the ring holds
 * nor once the ring moved past its log. */
static void dropped_replica_never_rejoins(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 2, 4, 100, LOG_SIZE);
	uint8_t in[500];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 100), 100);
	commit_one(g, 0);
	commit_one(g, 1);
	link_drops(g, 2, 1); /* it has batch 0, unconfirmed */
	window_drop(w, 2);
	state_is(g, 2, REPLICA_DROPPED);
	assert_int_equal(window_state(w), WINDOW_STREAMING);
	assert_int_equal(window_inflight(w), 0);
	/* Its log ends where the stream is: still not taken back. */
	assert_int_not_equal(rejoin(g, 2), WINDOW_REJOINED);
	state_is(g, 2, REPLICA_DROPPED);

	stream(g, in, 100, sizeof(in), FIRST_TWO);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	assert_int_equal(rejoin(g, 2), WINDOW_GAP_GONE);
	assert_int_equal(g->r[2].posts, 1);
	log_is(g, 0, in, sizeof(in));
	log_is(g, 1, in, sizeof(in));
	assert_int_equal(g->r[2].end, LOG_START + 100);
	assert_int_equal(holding_the_commit(w), 2);
}

/* k = n = 3: a lost replica is never a laggard to drop, and dropping it
 * leaves too few. */
static void dropping_a_needed_replica_is_too_few(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 3, 1, 100, LOG_SIZE);
	uint8_t in[500];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, sizeof(in)), 400);
	commit_all(g, 0);
	commit_all(g, 1);
	link_drops(g, 2, 0);
	assert_false(space_free(w));
	assert_int_equal(window_drop_laggards(w), 0);
	state_is(g, 2, REPLICA_LOST);
	assert_int_equal(window_state(w), WINDOW_STREAMING);

	window_drop(w, 2);
	state_is(g, 2, REPLICA_DROPPED);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_TOO_FEW);
	assert_false(space_free(w));
	assert_int_equal(g->committed_calls, 0);
	assert_int_equal(window_committed_input(w), 0);
	assert_int_not_equal(rejoin(g, 2), WINDOW_REJOINED);
}

/* A post that fails loses that replica only: the others go on, and it
 * catches up when it is back. */
static void post_failure_loses_one_replica(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 2, 1, 100, LOG_SIZE);
	static uint8_t in[1000];
	pattern(in, sizeof(in));
	g->r[1].down = true;
	assert_int_equal(feed(w, in, 100), 100);
	state_is(g, 1, REPLICA_LOST);
	state_is(g, 0, REPLICA_ACTIVE);
	state_is(g, 2, REPLICA_ACTIVE);
	assert_int_equal(window_inflight_of(w, 1), 0);
	assert_int_equal(window_state(w), WINDOW_STREAMING);
	commit_one(g, 0);
	commit_one(g, 2);
	assert_int_equal(g->committed_calls, 1);

	assert_int_equal(feed(w, in + 100, 900), 300); /* 4 slots */
	commit_all(g, 0);
	commit_all(g, 2);
	assert_int_equal(g->committed_calls, 4);
	assert_int_equal(g->r[1].attempts, 1); /* not posted while lost */
	assert_int_equal(g->r[0].posts, 4);

	g->r[1].down = false;
	assert_int_equal(rejoin(g, 1), WINDOW_REJOINED);
	state_is(g, 1, REPLICA_CATCHING_UP);
	assert_int_equal(window_inflight_of(w, 1), 1); /* its one credit */
	assert_int_equal(window_oldest_of(w, 1)->seq, 0);
	stream(g, in, 400, sizeof(in), ALL);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	for (unsigned i = 0; i < 3; i++)
		log_is(g, i, in, sizeof(in));
	assert_int_equal(holding_the_commit(w), 3);
}

/* ---- credits: depth per replica, slots in the ring ---- */

/* One replica slow: the ring holds slots batches for it while the others
 * stream on, yet no receiver is ever posted more than depth at once (the
 * check is in fake_post); each confirmation lets one more through. */
static void ring_holds_slots_each_replica_depth(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 2, 2, 100, LOG_SIZE);
	static uint8_t in[1200];
	pattern(in, sizeof(in));
	assert_int_equal(window_slots(w), 2 * WINDOW_RING_FACTOR);
	assert_int_equal(feed(w, in, sizeof(in)), 800); /* 8 slots */
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(g->r[i].nposted, 2);
		assert_int_equal(window_inflight_of(w, i), 2);
	}
	commit_all(g, 0); /* posted one more per confirmation */
	commit_all(g, 1);
	assert_int_equal(g->r[0].posts, 8);
	assert_int_equal(g->committed_calls, 8);
	assert_int_equal(window_inflight_of(w, 0), 0);
	/* Replica 2 confirmed nothing: it holds the whole ring, posted
	 * only its two credits' worth. */
	assert_int_equal(window_inflight(w), window_slots(w));
	assert_int_equal(window_inflight_of(w, 2), 2);
	assert_int_equal(g->r[2].posts, 2);
	assert_false(space_free(w));
	commit_one(g, 2);
	assert_int_equal(window_inflight(w), 7);
	assert_int_equal(window_inflight_of(w, 2), 2);
	assert_int_equal(g->r[2].posts, 3);
	assert_true(space_free(w));

	stream(g, in, 800, sizeof(in), ALL);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	assert_int_equal(g->committed_calls, 12);
	for (unsigned i = 0; i < 3; i++) {
		log_is(g, i, in, sizeof(in));
		assert_int_equal(g->r[i].most, 2); /* up to, never over */
	}
	assert_int_equal(holding_the_commit(w), 3);
}

/* Back with a gap of 8 batches and 2 credits: posted 2, then one more
 * after each confirmation until the gap is confirmed and it is active. */
static void long_gap_is_posted_a_credit_at_a_time(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 2, 2, 100, LOG_SIZE);
	static uint8_t in[1000];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 200), 200);
	link_drops(g, 2, 0);
	assert_int_equal(feed(w, in + 200, 800), 600); /* pinned by 2 */
	commit_all(g, 0);
	commit_all(g, 1);
	assert_int_equal(g->committed_calls, 8);
	assert_int_equal(window_inflight(w), 8);

	unsigned posts = g->r[2].posts;
	assert_int_equal(rejoin(g, 2), WINDOW_REJOINED);
	assert_int_equal(g->r[2].posts - posts, 2);
	assert_int_equal(window_inflight_of(w, 2), 2);
	for (unsigned n = 1; n <= 8; n++) {
		state_is(g, 2, REPLICA_CATCHING_UP);
		posts = g->r[2].posts;
		commit_one(g, 2);
		assert_int_equal(window_replica_input(w, 2), n * 100);
		assert_int_equal(g->r[2].posts - posts, n <= 6 ? 1 : 0);
		assert_int_equal(window_inflight_of(w, 2), n <= 6 ? 2 : 8 - n);
		assert_int_equal(window_inflight(w), 8 - n);
	}
	state_is(g, 2, REPLICA_ACTIVE);
	assert_int_equal(g->r[2].most, 2);

	stream(g, in, 800, sizeof(in), ALL);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	assert_int_equal(g->committed_calls, 10);
	for (unsigned i = 0; i < 3; i++)
		log_is(g, i, in, sizeof(in));
	assert_int_equal(holding_the_commit(w), 3);
}

/* Dropping a connected replica with batches in flight rewinds its
 * cursor: nothing counts as in flight to it, its late confirmation is
 * ignored, it no longer pins the ring and is never posted again. */
static void drop_rewinds_the_cursor(void **state)
{
	struct rig *g = *state;
	struct send_window *w = start(g, 3, 2, 2, 100, LOG_SIZE);
	uint8_t in[600];
	pattern(in, sizeof(in));
	assert_int_equal(feed(w, in, 200), 200);
	assert_int_equal(window_inflight_of(w, 2), 2);
	assert_int_equal(window_oldest_of(w, 2)->seq, 0);
	window_drop(w, 2);
	state_is(g, 2, REPLICA_DROPPED);
	assert_int_equal(window_inflight_of(w, 2), 0);
	assert_null(window_oldest_of(w, 2));
	assert_int_equal(window_state(w), WINDOW_STREAMING);

	struct window_batch late = receive(&g->r[2]);
	assert_int_equal(window_confirmed(w, 2, late.seq, g->r[2].end), 0);
	assert_int_equal(window_replica_input(w, 2), 0);
	assert_int_equal(window_inflight_of(w, 2), 0);
	/* Back at batch 1, which the ring still holds: dropped is for good. */
	assert_int_equal(rejoin(g, 2), WINDOW_GAP_GONE);
	state_is(g, 2, REPLICA_DROPPED);
	assert_int_equal(window_inflight_of(w, 2), 0);
	assert_null(window_oldest_of(w, 2));
	assert_int_equal(g->r[2].attempts, 2);
	commit_all(g, 0);
	commit_all(g, 1);
	assert_int_equal(g->committed_calls, 2);
	assert_int_equal(window_inflight(w), 0); /* 2 pins nothing */

	g->r[2].nposted = 0; /* its link is closed */
	stream(g, in, 200, sizeof(in), FIRST_TWO);
	assert_int_equal(window_state(w), WINDOW_DONE);
	assert_int_equal(window_error(w), WINDOW_OK);
	assert_int_equal(g->r[2].posts, 2);
	log_is(g, 0, in, sizeof(in));
	log_is(g, 1, in, sizeof(in));
	assert_int_equal(holding_the_commit(w), 2);
}

#define T(f) cmocka_unit_test_setup_teardown(f, rig_setup, rig_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(connect_refuses_bad_rules),
	    T(streams_in_order_and_drains),
	    T(a_batch_past_the_reach_waits),
	    T(a_lone_commit_holds_the_next_until_confirmed),
	    T(partial_batch_is_flushed),
	    T(full_log_takes_no_more),
	    T(set_end_makes_room_again),
	    T(rejoin_resends_the_uncommitted_tail),
	    T(rejoin_at_confirmed_resends_all_in_flight),
	    T(input_ends_while_lost),
	    T(rejoin_with_everything_committed_finishes),
	    T(confirmation_out_of_order_is_refused),
	    T(straggler_after_a_loss_is_ignored),
	    T(rejoin_inside_a_batch_diverges),
	    T(rejoin_past_the_stream_diverges),
	    T(rejoin_below_confirmed_shrinks),
	    T(shrunk_replica_counts_what_it_holds),
	    T(all_three_must_confirm),
	    T(two_of_three_commit_and_a_laggard_is_dropped),
	    T(laggards_are_dropped_down_to_k),
	    T(lost_replica_catches_up_from_the_ring),
	    T(lost_again_while_catching_up),
	    T(dropped_replica_never_rejoins),
	    T(dropping_a_needed_replica_is_too_few),
	    T(post_failure_loses_one_replica),
	    T(ring_holds_slots_each_replica_depth),
	    T(long_gap_is_posted_a_credit_at_a_time),
	    T(drop_rewinds_the_cursor),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
