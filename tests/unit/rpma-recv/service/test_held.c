/* Requests held while their log opens (service/held.c): one is due the
 * moment its log is no longer to open, or once held RECV_ANSWER_MS; the
 * oldest due first; no more than RECV_HELD_MAX held. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "log/config.h"
#include "service/held.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

/* The logs still to open, for the test: names in a space-separated list. */
static bool opening_in(const void *ctx, const char *name)
{
	char word[RS_LOG_NAME_MAX + 3];
	snprintf(word, sizeof(word), " %s ", name);
	return strstr(ctx, word) != NULL;
}

static void hold(struct recv_held *h, const char *name, uint64_t at_ns)
{
	struct rs_listener_event ev = {.type = RS_LISTENER_REQUEST};
	struct rs_connect_req req = {.version = RS_PROTO_VERSION};
	snprintf(req.log_name, sizeof(req.log_name), "%s", name);
	assert_true(recv_held_add(h, &ev, &req, at_ns));
}

/* The name of the request taken as due at now_ns ("": none was). */
static const char *take(struct recv_held *h, const char *opening,
			uint64_t now_ns)
{
	static char name[RS_LOG_NAME_MAX + 1];
	struct recv_held_request *r =
	    recv_held_take_due(h, opening_in, opening, now_ns);
	name[0] = 0;
	if (r)
		snprintf(name, sizeof(name), "%s", r->req.log_name);
	free(r);
	return name;
}

static void a_request_is_due_the_moment_its_log_opens(void **state)
{
	(void)state;
	struct recv_held h = {0};
	hold(&h, "a", 1000 * MS);
	hold(&h, "b", 1000 * MS);
	assert_string_equal(take(&h, " a b ", 1001 * MS), "");
	/* b opened: its request is due, a's still waits */
	assert_string_equal(take(&h, " a ", 1002 * MS), "b");
	assert_string_equal(take(&h, " a ", 1002 * MS), "");
	assert_int_equal(h.count, 1);
	assert_string_equal(take(&h, " ", 1003 * MS), "a");
	assert_int_equal(h.count, 0);
	assert_null(h.first);
}

static void a_request_is_due_once_held_its_time(void **state)
{
	(void)state;
	struct recv_held h = {0};
	hold(&h, "slow", 1000 * MS);
	hold(&h, "later", 1100 * MS);
	uint64_t late = (1000 + RECV_ANSWER_MS) * MS;
	assert_string_equal(take(&h, " slow later ", late - 1), "");
	assert_string_equal(take(&h, " slow later ", late), "slow");
	assert_string_equal(take(&h, " slow later ", late), "");
	assert_string_equal(take(&h, " slow later ", late + 100 * MS), "later");
}

static void the_oldest_due_goes_first(void **state)
{
	(void)state;
	struct recv_held h = {0};
	hold(&h, "x", 1 * MS);
	hold(&h, "y", 2 * MS);
	hold(&h, "x", 3 * MS);
	assert_string_equal(take(&h, " y ", 4 * MS), "x");
	assert_string_equal(take(&h, " y ", 4 * MS), "x");
	assert_string_equal(take(&h, " y ", 4 * MS), "");
	recv_held_drop_all(&h);
	assert_int_equal(h.count, 0);
	assert_null(h.first);
}

static void no_more_than_the_most_are_held(void **state)
{
	(void)state;
	struct recv_held h = {0};
	for (unsigned i = 0; i < RECV_HELD_MAX; i++)
		hold(&h, "full", i * MS);
	struct rs_listener_event ev = {0};
	struct rs_connect_req req = {0};
	assert_false(recv_held_add(&h, &ev, &req, 0));
	assert_int_equal(h.count, RECV_HELD_MAX);
	recv_held_drop_all(&h);
	assert_int_equal(h.count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_request_is_due_the_moment_its_log_opens),
	    cmocka_unit_test(a_request_is_due_once_held_its_time),
	    cmocka_unit_test(the_oldest_due_goes_first),
	    cmocka_unit_test(no_more_than_the_most_are_held),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
