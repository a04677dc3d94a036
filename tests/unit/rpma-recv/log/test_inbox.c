/* Connection requests on their way to a log's thread (log/inbox.h): first
 * in, first out; the descriptor readable while one waits and after a
 * wake-up, quiet once the queue is found empty or hushed; only a request
 * handed over before a time taken by pop_older; requests pushed from
 * another thread all arrive, in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "log/inbox.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>

static bool readable(const struct recv_inbox *in)
{
	struct pollfd p = {.fd = in->fd, .events = POLLIN};
	return poll(&p, 1, 0) == 1;
}

static struct recv_handover *request(uint64_t asked_ns)
{
	struct recv_handover *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	h->asked_ns = asked_ns;
	return h;
}

static void first_in_first_out(void **state)
{
	(void)state;
	struct recv_inbox in;
	assert_int_equal(recv_inbox_init(&in), 0);
	assert_false(readable(&in));
	assert_null(recv_inbox_pop(&in));
	recv_inbox_push(&in, request(1));
	recv_inbox_push(&in, request(2));
	assert_true(readable(&in));
	assert_true(recv_inbox_waiting(&in));
	struct recv_handover *h = recv_inbox_pop(&in);
	assert_int_equal(h->asked_ns, 1);
	free(h);
	/* hushed while one waits: quiet, the request kept */
	recv_inbox_hush(&in);
	assert_false(readable(&in));
	assert_true(recv_inbox_waiting(&in));
	/* only one handed over before 2 is taken by pop_older */
	assert_null(recv_inbox_pop_older(&in, 2));
	h = recv_inbox_pop_older(&in, 3);
	assert_int_equal(h->asked_ns, 2);
	free(h);
	assert_false(recv_inbox_waiting(&in));
	/* a wake-up with nothing queued: readable until a pop finds none */
	recv_inbox_wake(&in);
	assert_true(readable(&in));
	assert_null(recv_inbox_pop(&in));
	assert_false(readable(&in));
	/* what is still queued goes with the inbox */
	recv_inbox_push(&in, request(5));
	recv_inbox_fini(&in);
}

#define PUSHED 1000

static void *pusher(void *arg)
{
	for (uint64_t i = 1; i <= PUSHED; i++)
		recv_inbox_push(arg, request(i));
	return NULL;
}

static void every_request_arrives_in_order(void **state)
{
	(void)state;
	struct recv_inbox in;
	assert_int_equal(recv_inbox_init(&in), 0);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, pusher, &in), 0);
	uint64_t next = 1;
	while (next <= PUSHED) {
		struct pollfd p = {.fd = in.fd, .events = POLLIN};
		assert_int_equal(poll(&p, 1, 10000), 1);
		struct recv_handover *h;
		while ((h = recv_inbox_pop(&in))) {
			assert_int_equal(h->asked_ns, next);
			next++;
			free(h);
		}
	}
	pthread_join(t, NULL);
	recv_inbox_fini(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(first_in_first_out),
	    cmocka_unit_test(every_request_arrives_in_order),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
