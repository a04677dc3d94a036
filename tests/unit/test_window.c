/* The sender's batch window against a fake link: a fake receiver that
 * holds a remote log, takes posted batches, confirms them when told, and
 * loses what was in flight when the link drops. The stream must arrive
 * exactly once, in order, whatever is lost and resent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "window.h"

#include <string.h>

#define LOG_START 8192u
#define LOG_SIZE (64u * 1024)

struct fake_link {
	uint8_t log[LOG_START + LOG_SIZE]; /* what the receiver committed */
	uint64_t committed;		   /* its write offset */
	struct window_batch posted[64];	   /* awaiting confirmation */
	unsigned nposted;
	unsigned posts;
	unsigned committed_calls;
	bool down; /* posting fails */
};

static int fake_post(void *ctx, struct window_batch *b)
{
	struct fake_link *f = ctx;
	if (f->down)
		return -1;
	f->posted[f->nposted++] = *b;
	f->posts++;
	return 0;
}

static void fake_committed(void *ctx, const struct window_batch *b)
{
	(void)b;
	struct fake_link *f = ctx;
	f->committed_calls++;
}

/* The receiver commits the oldest posted batch and confirms it. */
static void receiver_commits_one(struct fake_link *f, struct send_window *w)
{
	assert_true(f->nposted > 0);
	struct window_batch b = f->posted[0];
	memmove(f->posted, f->posted + 1, --f->nposted * sizeof(b));
	assert_int_equal(b.offset, f->committed); /* contiguous appends */
	memcpy(f->log + b.offset, b.data, b.length);
	f->committed = b.offset + b.length;
	window_confirmed(w, b.seq, f->committed);
}

/* The link drops: what was posted and not confirmed is forgotten, but
 * the receiver may already have committed `keep` of those batches. */
static void link_drops(struct fake_link *f, struct send_window *w,
		       unsigned keep)
{
	for (unsigned i = 0; i < keep; i++) {
		struct window_batch b = f->posted[i];
		memcpy(f->log + b.offset, b.data, b.length);
		f->committed = b.offset + b.length;
	}
	f->nposted = 0;
	window_lost(w);
}

static void setup(struct fake_link *f, struct send_window *w, uint16_t depth,
		  uint32_t batch)
{
	memset(f, 0, sizeof(*f));
	f->committed = LOG_START;
	struct window_link link = {f, fake_post, fake_committed};
	window_init(w, &link);
	assert_int_equal(w->state, WINDOW_CONNECTING);
	assert_int_equal(
	    window_connected(w, depth, batch, LOG_START, LOG_START + LOG_SIZE),
	    0);
	assert_int_equal(w->state, WINDOW_STREAMING);
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

static void pattern(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + i / 251);
}

static void streams_in_order_and_drains(void **state)
{
	(void)state;
	struct fake_link f;
	struct send_window w;
	setup(&f, &w, 4, 1000);
	uint8_t in[10000];
	pattern(in, sizeof(in));
	size_t sent = 0;
	while (sent < sizeof(in)) {
		sent += feed(&w, in + sent, sizeof(in) - sent);
		assert_true(window_inflight(&w) <= 4);
		if (sent < sizeof(in)) /* full: a confirmation frees a slot */
			receiver_commits_one(&f, &w);
	}
	window_input_end(&w, 0);
	assert_int_equal(w.state, WINDOW_DRAINING);
	while (f.nposted)
		receiver_commits_one(&f, &w);
	assert_int_equal(w.state, WINDOW_DONE);
	assert_int_equal(w.error, WINDOW_OK);
	assert_int_equal(window_committed_input(&w), sizeof(in));
	assert_memory_equal(f.log + LOG_START, in, sizeof(in));
	assert_int_equal(f.committed_calls, 10);
	window_fini(&w);
}

static void partial_batch_is_flushed(void **state)
{
	(void)state;
	struct fake_link f;
	struct send_window w;
	setup(&f, &w, 2, 4096);
	uint8_t line[64];
	pattern(line, sizeof(line));
	assert_int_equal(feed(&w, line, sizeof(line)), sizeof(line));
	assert_int_equal(f.posts, 0); /* still filling */
	window_flush(&w, 0);	      /* the input went idle */
	assert_int_equal(f.posts, 1);
	receiver_commits_one(&f, &w);
	assert_int_equal(window_committed_input(&w), sizeof(line));
	window_fini(&w);
}

/* Lost with batches in flight, some of which the receiver had committed:
 * after the reconnect exactly the others are sent again. */
static void reconnect_resends_the_uncommitted_tail(void **state)
{
	(void)state;
	struct fake_link f;
	struct send_window w;
	setup(&f, &w, 4, 1000);
	uint8_t in[6000];
	pattern(in, sizeof(in));
	size_t sent = feed(&w, in, sizeof(in));
	assert_int_equal(sent, 4000); /* four batches in flight */
	receiver_commits_one(&f, &w); /* batch 0 confirmed */
	link_drops(&f, &w, 2);	      /* 1 and 2 committed, unconfirmed */
	assert_int_equal(w.state, WINDOW_RECONNECTING);
	uint32_t room;
	assert_null(window_space(&w, &room)); /* no input while down */

	unsigned before = f.posts;
	window_reconnected(&w, f.committed);
	assert_int_equal(w.state, WINDOW_STREAMING);
	assert_int_equal(window_committed_input(&w), 3000);
	assert_int_equal(f.posts - before, 1); /* only batch 3 again */
	assert_int_equal(f.posted[0].offset, LOG_START + 3000);

	sent += feed(&w, in + sent, sizeof(in) - sent);
	window_input_end(&w, 0);
	while (f.nposted)
		receiver_commits_one(&f, &w);
	assert_int_equal(w.state, WINDOW_DONE);
	assert_int_equal(window_committed_input(&w), sizeof(in));
	assert_memory_equal(f.log + LOG_START, in, sizeof(in)); /* once */
	window_fini(&w);
}

/* The input ends while the link is down: after the reconnect the window
 * drains, then is done. A post that fails counts as a lost link. */
static void input_ends_while_reconnecting(void **state)
{
	(void)state;
	struct fake_link f;
	struct send_window w;
	setup(&f, &w, 2, 100);
	uint8_t in[150];
	pattern(in, sizeof(in));
	f.down = true;
	assert_int_equal(feed(&w, in, 100), 100); /* the post fails */
	assert_int_equal(w.state, WINDOW_RECONNECTING);
	window_input_end(&w, 0);
	f.down = false;
	window_reconnected(&w, f.committed);
	assert_int_equal(w.state, WINDOW_DRAINING);
	receiver_commits_one(&f, &w);
	assert_int_equal(w.state, WINDOW_DONE);
	assert_int_equal(window_committed_input(&w), 100);
	window_fini(&w);
}

static void confirmation_out_of_order_fails(void **state)
{
	(void)state;
	struct fake_link f;
	struct send_window w;
	setup(&f, &w, 4, 100);
	uint8_t in[300];
	pattern(in, sizeof(in));
	feed(&w, in, sizeof(in));
	window_confirmed(&w, 1, LOG_START + 200); /* batch 0 not yet */
	assert_int_equal(w.state, WINDOW_DONE);
	assert_int_equal(w.error, WINDOW_OUT_OF_ORDER);
	assert_int_equal(window_committed_input(&w), 0);
	window_fini(&w);
}

/* A log that ends inside a batch after a reconnect is not ours to fix. */
static void diverged_log_is_refused(void **state)
{
	(void)state;
	struct fake_link f;
	struct send_window w;
	setup(&f, &w, 2, 100);
	uint8_t in[200];
	pattern(in, sizeof(in));
	feed(&w, in, sizeof(in));
	link_drops(&f, &w, 0);
	window_reconnected(&w, LOG_START + 50);
	assert_int_equal(w.state, WINDOW_DONE);
	assert_int_equal(w.error, WINDOW_DIVERGED);
	window_fini(&w);
}

static void full_log_takes_no_more(void **state)
{
	(void)state;
	struct fake_link f;
	struct send_window w;
	memset(&f, 0, sizeof(f));
	f.committed = LOG_START;
	struct window_link link = {&f, fake_post, fake_committed};
	window_init(&w, &link);
	window_connected(&w, 4, 1000, LOG_START, LOG_START + 2500);
	uint8_t in[4000];
	pattern(in, sizeof(in));
	assert_int_equal(feed(&w, in, sizeof(in)), 2500);
	assert_true(window_log_full(&w));
	uint32_t room = 1;
	assert_non_null(window_space(&w, &room));
	assert_int_equal(room, 0);
	assert_int_equal(f.posts, 3); /* 1000, 1000 and the last 500 */
	window_fini(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(streams_in_order_and_drains),
	    cmocka_unit_test(partial_batch_is_flushed),
	    cmocka_unit_test(reconnect_resends_the_uncommitted_tail),
	    cmocka_unit_test(input_ends_while_reconnecting),
	    cmocka_unit_test(confirmation_out_of_order_fails),
	    cmocka_unit_test(diverged_log_is_refused),
	    cmocka_unit_test(full_log_takes_no_more),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
