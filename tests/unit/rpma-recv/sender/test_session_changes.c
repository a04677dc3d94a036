/* The requests that change what a log is (src/rpma-recv/sender/
 * session_changes.c), sent to a writer's session over the fake link
 * (fake_link.h) into a real pool with its rotation: a replacement placed
 * beside the log, told again to a writer back on a new connection, filled
 * by commits and switched in only at its end; one at a time; refused to a
 * writer that did not ask to replace; a rebase answered once it is over,
 * refused without an archive or while a replacement is under way. What
 * a sender may not ask ends its session; what the log cannot do now is
 * answered and the session goes on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/log.h"
#include "fake_link.h"
#include "methods/recv_method.h"
#include "rotation/generation.h"
#include "rotation/rotation.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POOL_SIZE (4u << 20)

struct fixture {
	char dir[64];
	char pool[PATH_MAX];
	struct recv_rotation_config rcfg;
	struct recv_pmem_target t;
	struct recv_rotation *rot;
	struct recv_generation gen;
	struct fake_link link;
	struct recv_session s;
	uint32_t seq;
};

static int setup(void **state)
{
	rs_log_init("test", RS_LOG_QUIET);
	struct fixture *f = calloc(1, sizeof(*f));
	strcpy(f->dir, "/tmp/rs-test-changes-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->pool, sizeof(f->pool), "%s/app.pool", f->dir);
	snprintf(f->rcfg.dir, sizeof(f->rcfg.dir), "%s", f->dir);
	struct rs_error err = {0};
	assert_int_equal(recv_pmem_target_open(&f->t, f->pool, POOL_SIZE, &err),
			 0);
	assert_int_equal(
	    recv_rotation_open(&f->rcfg, "app", &f->t, 0, &f->rot, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	recv_rotation_close(&f->rot);
	recv_pmem_target_close(&f->t);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* The log without an archive: a full pool is full. */
static void without_archive(struct fixture *f)
{
	recv_rotation_close(&f->rot);
	f->rcfg.dir[0] = 0;
	struct rs_error err = {0};
	assert_int_equal(
	    recv_rotation_open(&f->rcfg, "app", &f->t, 0, &f->rot, &err), 0);
}

/* A gpspm writer's session, serving: replace says whether it asked to
 * replace the log, archive whether the log has an archive. */
static void start(struct fixture *f, bool replace, bool archive)
{
	if (!archive)
		without_archive(f);
	struct recv_session_config cfg = {
	    .target = &f->t,
	    .method = &recv_method_gpspm,
	    .rotation = f->rot,
	    .gen = &f->gen,
	    .replace = replace,
	    .credits = 1,
	    .deadline_ms = 5000,
	    .peer_timeout_ms = 10000,
	};
	struct recv_session_link link = fake_link_ops(&f->link, false);
	recv_session_init(&f->s, &cfg, &link, "192.0.2.2", 1000);
	recv_session_on_established(&f->s, 1100);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

/* The reply to a request of that type; a request left unanswered for
 * now (a rebase under way) leaves the last reply as it was. */
static struct rs_msg ask(struct fixture *f, uint8_t type, uint64_t offset,
			 uint64_t length)
{
	struct rs_msg req = {
	    .type = type, .seq = ++f->seq, .offset = offset, .length = length};
	recv_session_on_message(&f->s, 0, &req, 1200);
	return f->link.last_reply;
}

/* len bytes of c committed where the next commit goes. */
static void commit(struct fixture *f, int c, uint64_t len)
{
	uint64_t at = recv_generation_head(&f->gen, &f->t);
	memset(f->t.base + at, c, len);
	struct rs_msg r = ask(f, RS_MSG_COMMIT, at, len);
	assert_int_equal(r.status, RS_MSG_OK);
}

static bool pool_holds(const struct fixture *f, int c, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		if (f->t.base[f->t.start + i] != c)
			return false;
	return true;
}

static void
a_replacement_goes_beside_the_log_and_switches_in_whole(void **state)
{
	struct fixture *f = *state;
	start(f, true, true);
	commit(f, 'o', 100000);
	uint64_t head = recv_pmem_target_write_offset(&f->t);
	struct rs_msg r = ask(f, RS_MSG_REPLACE, 0, 200000);
	assert_int_equal(r.status, RS_MSG_OK);
	assert_true(r.offset >= head); /* beside the old content */
	assert_true(f->gen.active);
	commit(f, 'n', 200000);
	/* the old content is the log until the switch */
	assert_int_equal(recv_pmem_target_write_offset(&f->t), head);
	assert_int_equal(recv_rotation_end(f->rot), 100000);
	r = ask(f, RS_MSG_SWITCH, f->gen.end, 0);
	assert_int_equal(r.status, RS_MSG_OK);
	assert_false(f->gen.active);
	assert_int_equal(recv_rotation_end(f->rot), 200000);
	assert_true(pool_holds(f, 'n', 200000));
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

/* Back on a new connection, a writer learns where the replacement it
 * began stands (offset 1: carry on), and that none is there after the
 * switch. */
static void a_writer_back_learns_where_its_replacement_stands(void **state)
{
	struct fixture *f = *state;
	start(f, true, true);
	struct rs_msg placed = ask(f, RS_MSG_REPLACE, 0, 0);
	assert_int_equal(placed.status, RS_MSG_OK);
	commit(f, 'n', 5000);
	struct rs_msg r = ask(f, RS_MSG_REPLACE, 1, 0);
	assert_int_equal(r.status, RS_MSG_OK);
	assert_int_equal(r.offset, placed.offset);
	assert_int_equal(r.length, 5000);
	assert_int_equal(ask(f, RS_MSG_SWITCH, f->gen.end, 0).status,
			 RS_MSG_OK);
	r = ask(f, RS_MSG_REPLACE, 1, 0);
	assert_int_equal(r.status, RS_MSG_NO_REPLACEMENT);
	assert_int_equal(r.length, 0);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

/* A switch before the replacement's end would lose its tail: the writer
 * broke the rule, its session ends and the old content stays the log
 * (sealed into the archive: a replacement of unknown length starts at the
 * pool's start). */
static void a_switch_short_of_the_end_ends_the_session(void **state)
{
	struct fixture *f = *state;
	start(f, true, true);
	commit(f, 'o', 1000);
	assert_int_equal(ask(f, RS_MSG_REPLACE, 0, 0).status, RS_MSG_OK);
	commit(f, 'n', 3000);
	struct rs_msg r = ask(f, RS_MSG_SWITCH, f->gen.end - 1, 0);
	assert_int_equal(r.status, RS_MSG_BAD_REQUEST);
	assert_int_equal(f->s.state, RECV_SESSION_REFUSING);
	assert_int_equal(recv_rotation_end(f->rot), 1000);
	assert_true(f->gen.active); /* forgotten when the writer goes */
}

static void one_replacement_at_a_time(void **state)
{
	struct fixture *f = *state;
	start(f, true, true);
	assert_int_equal(ask(f, RS_MSG_REPLACE, 0, 0).status, RS_MSG_OK);
	assert_int_equal(ask(f, RS_MSG_REPLACE, 0, 0).status,
			 RS_MSG_BAD_REQUEST);
	assert_int_equal(f->s.state, RECV_SESSION_REFUSING);
}

/* Only a writer that asked to replace the log (--truncate) may. */
static void a_writer_that_did_not_ask_may_not_replace(void **state)
{
	struct fixture *f = *state;
	start(f, false, true);
	assert_int_equal(ask(f, RS_MSG_REPLACE, 0, 0).status,
			 RS_MSG_BAD_REQUEST);
	assert_false(f->gen.active);
	assert_int_equal(f->s.state, RECV_SESSION_REFUSING);
}

/* Larger than the pool can take: said, with the most it can, and the
 * session goes on (the sender decides). A switch with none under way is
 * answered so too. */
static void what_the_log_cannot_do_now_is_answered(void **state)
{
	struct fixture *f = *state;
	start(f, true, false);
	commit(f, 'o', 1000);
	struct rs_msg r = ask(f, RS_MSG_REPLACE, 0, 2 * POOL_SIZE);
	assert_int_equal(r.status, RS_MSG_NO_ROOM);
	assert_true(r.length > 0 && r.length < POOL_SIZE);
	assert_false(f->gen.active);
	assert_int_equal(ask(f, RS_MSG_SWITCH, 0, 0).status,
			 RS_MSG_NO_REPLACEMENT);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

/* A rebase is answered once the archive holds the old content: with the
 * log's new base, at the log's next timer turn. */
static void a_rebase_is_answered_once_over(void **state)
{
	struct fixture *f = *state;
	start(f, false, true);
	commit(f, 'o', 100000);
	unsigned replies = f->link.replies;
	ask(f, RS_MSG_REBASE, recv_pmem_target_write_offset(&f->t), 0);
	assert_true(f->s.rebasing.on);
	assert_int_equal(f->link.replies, replies); /* not yet */
	recv_session_on_timer(&f->s, 1300);
	assert_false(f->s.rebasing.on);
	assert_int_equal(f->link.replies, replies + 1);
	assert_int_equal(f->link.last_reply.type, RS_MSG_REBASE_DONE);
	assert_int_equal(f->link.last_reply.status, RS_MSG_OK);
	assert_int_equal(f->link.last_reply.offset, 100000);
	assert_int_equal(recv_rotation_base(f->rot), 100000);
}

static void
a_rebase_without_an_archive_is_refused_and_the_session_goes_on(void **state)
{
	struct fixture *f = *state;
	start(f, false, false);
	commit(f, 'o', 1000);
	struct rs_msg r =
	    ask(f, RS_MSG_REBASE, recv_pmem_target_write_offset(&f->t), 0);
	assert_int_equal(r.status, RS_MSG_NO_ARCHIVE);
	assert_false(f->s.rebasing.on);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

static void no_rebase_while_a_replacement_is_under_way(void **state)
{
	struct fixture *f = *state;
	start(f, true, true);
	commit(f, 'o', 100000);
	assert_int_equal(ask(f, RS_MSG_REPLACE, 0, 200000).status, RS_MSG_OK);
	struct rs_msg r =
	    ask(f, RS_MSG_REBASE, recv_pmem_target_write_offset(&f->t), 0);
	assert_int_equal(r.status, RS_MSG_BAD_REQUEST);
	assert_int_equal(f->s.state, RECV_SESSION_REFUSING);
	assert_int_equal(recv_rotation_base(f->rot), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		a_replacement_goes_beside_the_log_and_switches_in_whole, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_writer_back_learns_where_its_replacement_stands, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_switch_short_of_the_end_ends_the_session, setup, teardown),
	    cmocka_unit_test_setup_teardown(one_replacement_at_a_time, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		a_writer_that_did_not_ask_may_not_replace, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		what_the_log_cannot_do_now_is_answered, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_rebase_is_answered_once_over,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_rebase_without_an_archive_is_refused_and_the_session_goes_on,
		setup, teardown),
	    cmocka_unit_test_setup_teardown(
		no_rebase_while_a_replacement_is_under_way, setup, teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
