/* The receiver's session states, driven by events against a fake link and
 * a real pool file: admitted, authenticating, serving, closing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../temp_pool.h"
#include "cli/log.h"
#include "error.h"
#include "fake_link.h"
#include "methods/recv_method.h"
#include "proto/pool_layout.h"
#include "reach/write_windows.h"
#include "replicas/replica_keys.h"
#include "sender/session.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#define POOL_SIZE (8u << 20)

struct fixture {
	char path[64];
	struct recv_pmem_target t;
	struct fake_link link;
	struct recv_session s;
};

static int setup(void **state)
{
	rs_log_init("test", RS_LOG_QUIET);
	struct fixture *f = calloc(1, sizeof(*f));
	if (temp_pool_open(f->path, "/tmp/rs-test-session-XXXXXX", &f->t,
			   POOL_SIZE))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	temp_pool_close(f->path, &f->t);
	free(f);
	return 0;
}

static void start_windowed(struct fixture *f, bool auth,
			   const struct recv_method *method, bool windows)
{
	struct recv_session_config cfg = {
	    .target = &f->t,
	    .method = method,
	    .windows = windows,
	    .auth = auth,
	    .credits = 2,
	    .deadline_ms = 5000,
	    .peer_timeout_ms = 10000,
	};
	struct recv_session_link link = fake_link_ops(&f->link, windows);
	recv_session_init(&f->s, &cfg, &link, "192.0.2.2", 1000);
	assert_int_equal(f->s.state, RECV_SESSION_ADMITTED);
}

static void start_with(struct fixture *f, bool auth,
		       const struct recv_method *method)
{
	start_windowed(f, auth, method, false);
}

/* A GPSPM writer's session. */
static void start(struct fixture *f, bool auth)
{
	start_with(f, auth, &recv_method_gpspm);
}

/* The session refused a request: its refusal went out signaled, and the
 * session ends when that send completes (the sender has it). */
static void refused(struct fixture *f)
{
	assert_int_equal(f->s.state, RECV_SESSION_REFUSING);
	assert_true(f->link.last_signaled);
	recv_session_on_sent(&f->s);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
}

/* A GPSPM commit of `len` bytes written at the log's write offset. */
static struct rs_msg commit_of(struct fixture *f, uint32_t seq, uint64_t len)
{
	uint64_t at = recv_pmem_target_write_offset(&f->t);
	memset(f->t.base + at, 'x', len);
	return (struct rs_msg){
	    .type = RS_MSG_COMMIT, .seq = seq, .offset = at, .length = len};
}

static void serves_commits_without_a_key(void **state)
{
	struct fixture *f = *state;
	start(f, false);
	recv_session_on_established(&f->s, 1100);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	for (uint32_t seq = 0; seq < 4; seq++) {
		struct rs_msg m = commit_of(f, seq, 100);
		recv_session_on_message(&f->s, 0, &m, 1200);
		assert_int_equal(f->link.last_reply.status, RS_MSG_OK);
		assert_int_equal(f->link.last_reply.seq, seq);
		assert_int_equal(f->link.last_reply.offset, m.offset + 100);
	}
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	assert_int_equal(f->s.commits, 4);
	assert_int_equal(f->s.bytes, 400);
	assert_int_equal(f->link.signaled, 2); /* one in `credits` */
	assert_int_equal(recv_pmem_target_write_offset(&f->t),
			 f->t.start + 400);
	recv_session_on_failure(&f->s, "disconnected");
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
	assert_true(f->s.served);
}

static void authenticates_then_grants(void **state)
{
	struct fixture *f = *state;
	f->link.auth_ok = true;
	start(f, true);
	recv_session_on_established(&f->s, 1100);
	assert_int_equal(f->s.state, RECV_SESSION_AUTHENTICATING);
	struct rs_msg early = commit_of(f, 0, 10);
	struct rs_msg answer = {.type = RS_MSG_AUTH};
	recv_session_on_message(&f->s, 0, &answer, 1200);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	assert_int_equal(f->link.grants, 1);
	assert_int_equal(f->link.replies, 0);
	recv_session_on_message(&f->s, 1, &early, 1200);
	assert_int_equal(f->link.last_reply.status, RS_MSG_OK);
}

static void wrong_key_closes_without_a_grant(void **state)
{
	struct fixture *f = *state;
	start(f, true);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg answer = {.type = RS_MSG_AUTH};
	recv_session_on_message(&f->s, 0, &answer, 1200);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
	assert_int_equal(f->link.grants, 0);
	assert_false(f->s.served);
	assert_non_null(strstr(f->s.why, "wrong auth key"));
}

/* A commit instead of the answer is no answer; nothing is written. */
static void commit_before_auth_is_refused(void **state)
{
	struct fixture *f = *state;
	f->link.auth_ok = true;
	start(f, true);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg m = commit_of(f, 0, 10);
	recv_session_on_message(&f->s, 0, &m, 1200);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), f->t.start);
}

static void deadlines_end_silent_senders(void **state)
{
	struct fixture *f = *state;
	start(f, false);
	recv_session_on_timer(&f->s, 5999);
	assert_int_equal(f->s.state, RECV_SESSION_ADMITTED);
	recv_session_on_timer(&f->s, 6000); /* never completed the connect */
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);

	start(f, true);
	recv_session_on_established(&f->s, 7000);
	recv_session_on_timer(&f->s, 11999);
	assert_int_equal(f->s.state, RECV_SESSION_AUTHENTICATING);
	recv_session_on_timer(&f->s, 12000); /* never answered */
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
	assert_int_equal(f->link.grants, 0);
}

/* An out-of-range commit is answered with its status, then the session
 * closes, and the log is untouched. */
/* A commit that overtakes the ESTABLISHED event is served. */
static void message_before_established_is_served(void **state)
{
	struct fixture *f = *state;
	start(f, false);
	struct rs_msg m = commit_of(f, 0, 10);
	recv_session_on_message(&f->s, 0, &m, 1200);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	assert_int_equal(f->link.last_reply.status, RS_MSG_OK);
	recv_session_on_established(&f->s, 1200); /* late: no change */
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

static void refused_request_closes(void **state)
{
	struct fixture *f = *state;
	start(f, false);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg m = {.type = RS_MSG_COMMIT,
			   .seq = 9,
			   .offset = f->t.end,
			   .length = 4096};
	recv_session_on_message(&f->s, 0, &m, 1200);
	assert_int_equal(f->link.last_reply.status, RS_MSG_OUT_OF_RANGE);
	refused(f);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), f->t.start);
	assert_int_equal(f->s.commits, 0);
}

/* While its refusal is on the way a session serves nothing more, and it
 * ends after a second even if the send never completes. */
static void a_refusal_lingers_a_second_at_most(void **state)
{
	struct fixture *f = *state;
	start(f, false);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg m = commit_of(f, 0, 10);
	m.offset = f->t.end;
	recv_session_on_message(&f->s, 0, &m, 1200);
	assert_int_equal(f->s.state, RECV_SESSION_REFUSING);
	unsigned replies = f->link.replies;
	m = commit_of(f, 1, 10); /* a good one, too late */
	recv_session_on_message(&f->s, 0, &m, 1300);
	assert_int_equal(f->link.replies, replies);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), f->t.start);
	recv_session_on_timer(&f->s, 2199);
	assert_int_equal(f->s.state, RECV_SESSION_REFUSING);
	recv_session_on_timer(&f->s, 2200);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
	assert_string_equal(f->s.why, "refused request");
}

/* A session commits by the method chosen for it only: a staged writer's
 * in-place commit, or any commit of a session without one (a verifier's),
 * is refused and ends it, and the log is untouched. */
static void commits_by_its_method_only(void **state)
{
	struct fixture *f = *state;
	const struct recv_method *const methods[] = {&recv_method_staged,
						     &recv_method_apm, NULL};
	for (size_t i = 0; i < 3; i++) {
		start_with(f, false, methods[i]);
		recv_session_on_established(&f->s, 1100);
		struct rs_msg m = commit_of(f, 5, 10);
		recv_session_on_message(&f->s, 0, &m, 1200);
		assert_int_equal(f->link.last_reply.status, RS_MSG_BAD_REQUEST);
		refused(f);
		assert_int_equal(f->s.commits, 0);
		assert_int_equal(recv_pmem_target_write_offset(&f->t),
				 f->t.start);
	}
}

/* A writer that commits alone (apm, flush) sends no commit request: its
 * commits are counted from the log's write offset as the receiver sees it
 * (on its timer, and around a request that changes the log); an offset
 * that went back (the log started over) is noted, not counted. */
static void commits_alone_are_counted_from_the_offset(void **state)
{
	struct fixture *f = *state;
	start_with(f, false, &recv_method_flush);
	recv_session_on_established(&f->s, 1100);
	recv_session_on_timer(&f->s, 1150);
	assert_int_equal(f->s.commits, 0);
	recv_pmem_target_commit(&f->t, f->t.start + 100); /* its own stores */
	recv_pmem_target_commit(&f->t, f->t.start + 300);
	recv_session_on_timer(&f->s, 1200);
	assert_int_equal(f->s.commits, 1); /* one advance seen */
	assert_int_equal(f->s.bytes, 300);
	recv_session_on_timer(&f->s, 1250); /* nothing new */
	assert_int_equal(f->s.bytes, 300);
	recv_pmem_target_commit(&f->t, f->t.start); /* started over */
	recv_session_on_timer(&f->s, 1300);
	recv_pmem_target_commit(&f->t, f->t.start + 50);
	recv_session_on_timer(&f->s, 1350);
	assert_int_equal(f->s.commits, 2);
	assert_int_equal(f->s.bytes, 350);
	/* A gpspm writer's commits are its requests, never the offset. */
	start_with(f, false, &recv_method_gpspm);
	recv_session_on_established(&f->s, 1100);
	recv_pmem_target_commit(&f->t, f->t.start + 500);
	recv_session_on_timer(&f->s, 1200);
	assert_int_equal(f->s.commits, 0);
}

/* While a rotation seals the log, a writer that commits alone and stores
 * a new word all the same (past the seal: the pool's starting over would
 * drop it) is ended on the receiver's next look; nothing it stored counts,
 * and its end puts the sealed end back. */
static void a_word_stored_while_sealed_ends_the_writer(void **state)
{
	struct fixture *f = *state;
	start_with(f, false, &recv_method_flush);
	recv_session_on_established(&f->s, 1100);
	uint64_t sealed = f->t.start + 4096;
	recv_pmem_target_commit(&f->t, sealed);
	recv_session_on_timer(&f->s, 1150);
	assert_int_equal(f->s.bytes, 4096);
	f->t.end_sealed = true;
	uint64_t past = htole64(sealed + 100);
	memcpy(f->t.base + RS_LOG_WRITE_OFFSET, &past, sizeof(past));
	recv_session_on_timer(&f->s, 1200);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), sealed);
	assert_int_equal(f->s.bytes, 4096);
	struct recv_offset_seen seen = recv_session_settle_offset(&f->s);
	assert_int_equal(seen.rule, RECV_OFFSET_WHILE_SEALED);
	assert_int_equal(recv_pmem_target_offset_word(&f->t), sealed);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), sealed);
	f->t.end_sealed = false;
}

/* A reader's wait is answered when the log grows past it, or after a
 * quarter of the peer timeout with the log as it is; one at a time, and
 * only for a session that connected to read. */
static void reader_waits_for_the_log_to_grow(void **state)
{
	struct fixture *f = *state;
	start_with(f, false, NULL);
	f->s.cfg.verify = true;
	recv_session_on_established(&f->s, 1100);
	struct rs_msg wait = {.type = RS_MSG_WAIT, .seq = 4, .length = 1};
	recv_session_on_message(&f->s, 2, &wait, 1200);
	recv_session_on_timer(&f->s, 1300);
	assert_int_equal(f->link.replies, 0); /* nothing to read yet */
	recv_pmem_target_commit(&f->t, f->t.start + 100); /* a writer's */
	recv_session_on_timer(&f->s, 1400);
	assert_int_equal(f->link.replies, 1);
	assert_int_equal(f->link.last_reply.type, RS_MSG_WAIT_DONE);
	assert_int_equal(f->link.last_reply.seq, 4);
	assert_int_equal(f->link.last_reply.offset, 100);
	/* Caught up: the answer comes after 10 s / 4 all the same. */
	wait.offset = 100;
	recv_session_on_message(&f->s, 2, &wait, 1500);
	recv_session_on_timer(&f->s, 1500 + 2499);
	assert_int_equal(f->link.replies, 1);
	recv_session_on_timer(&f->s, 1500 + 2500);
	assert_int_equal(f->link.replies, 2);
	assert_int_equal(f->link.last_reply.offset, 100);
	/* Length 0: at once. */
	wait.length = 0;
	recv_session_on_message(&f->s, 2, &wait, 4100);
	assert_int_equal(f->link.replies, 3);
	/* A second wait while one is parked ends the session. */
	wait.length = 1;
	recv_session_on_message(&f->s, 2, &wait, 4200);
	recv_session_on_message(&f->s, 3, &wait, 4300);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
}

static void a_writer_does_not_wait(void **state)
{
	struct fixture *f = *state;
	start(f, false);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg wait = {.type = RS_MSG_WAIT, .length = 1};
	recv_session_on_message(&f->s, 0, &wait, 1200);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
}

static void keepalives_are_answered(void **state)
{
	struct fixture *f = *state;
	start(f, false);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg ka = {.type = RS_MSG_KEEPALIVE, .seq = 7};
	recv_session_on_message(&f->s, 2, &ka, 6000);
	assert_int_equal(f->link.last_reply.type, RS_MSG_KEEPALIVE_DONE);
	assert_int_equal(f->link.last_reply.seq, 7);
	assert_int_equal(f->s.commits, 0);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), f->t.start);
}

/* A silent sender's link is probed half a peer timeout (10 s here) after
 * its last word or the last answered probe; a word puts the next probe
 * off; a failed probe ends the session. */
static void silence_is_probed_a_failed_probe_ends(void **state)
{
	struct fixture *f = *state;
	start(f, false);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg ka = {.type = RS_MSG_KEEPALIVE, .seq = 1};
	recv_session_on_message(&f->s, 0, &ka, 2000);
	recv_session_on_timer(&f->s, 6999); /* heard 4.999 s ago */
	assert_int_equal(f->link.probes, 0);
	recv_session_on_timer(&f->s, 7000);
	assert_int_equal(f->link.probes, 1);
	recv_session_on_probe_answered(&f->s);
	recv_session_on_timer(&f->s, 11999); /* probed 4.999 s ago */
	assert_int_equal(f->link.probes, 1);
	recv_session_on_timer(&f->s, 12000);
	assert_int_equal(f->link.probes, 2);
	recv_session_on_probe_answered(&f->s);
	recv_session_on_message(&f->s, 0, &ka, 13000); /* a word: put off */
	recv_session_on_timer(&f->s, 17999);
	assert_int_equal(f->link.probes, 2);
	recv_session_on_timer(&f->s, 18000);
	assert_int_equal(f->link.probes, 3);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	recv_session_on_probe_failed(&f->s, "transport retry counter exceeded",
				     18500);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
	assert_string_equal(f->s.why, "peer timeout");
}

/* A probe the link never answers (a device that resends for ever) ends
 * the session half a timeout after it was posted: the peer timeout in
 * all, counted from the last word. */
/* A session whose sender's last word (a keepalive) came at 2000 ms, and
 * whose link was probed after its silence, at 7000 ms. */
static void probed_after_a_keepalive(struct fixture *f)
{
	start(f, false);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg ka = {.type = RS_MSG_KEEPALIVE, .seq = 1};
	recv_session_on_message(&f->s, 0, &ka, 2000);
	recv_session_on_timer(&f->s, 7000);
	assert_int_equal(f->link.probes, 1);
}

static void an_unanswered_probe_ends_at_the_peer_timeout(void **state)
{
	struct fixture *f = *state;
	probed_after_a_keepalive(f);
	recv_session_on_timer(&f->s, 11999);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	assert_int_equal(f->link.probes, 1); /* one at a time */
	recv_session_on_timer(&f->s, 12000);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
	assert_string_equal(f->s.why, "peer timeout");
}

/* The log's thread could not run for 3 s while the probe was out (its
 * wait ended 3 s late: a host short of CPU, where Soft-RoCE's answer
 * starves too): that time is no silence, and the probe has 3 s more. */
static void time_the_thread_could_not_run_is_no_silence(void **state)
{
	struct fixture *f = *state;
	probed_after_a_keepalive(f);
	f->link.stall_at_ms = 10000;
	f->link.stall_ms = 3000;
	recv_session_on_timer(&f->s, 12000);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	recv_session_on_timer(&f->s, 14999);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	recv_session_on_timer(&f->s, 15000);
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
	assert_string_equal(f->s.why, "peer timeout");
}

/* The sender's host is busy: the probe's answer is late, but the sender
 * speaks meanwhile (a commit after the probe went out). It is there: its
 * session goes on, and the silence is measured from its word. */
static void a_word_after_a_probe_answers_for_the_link(void **state)
{
	struct fixture *f = *state;
	probed_after_a_keepalive(f);
	struct rs_msg ka = {.type = RS_MSG_KEEPALIVE, .seq = 1};
	recv_session_on_message(&f->s, 0, &ka, 9000); /* a word, no answer */
	recv_session_on_timer(&f->s, 12000);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	recv_session_on_timer(&f->s, 14000); /* silent 5 s: probed again */
	assert_int_equal(f->link.probes, 2);
	recv_session_on_timer(&f->s, 19000); /* that one unanswered */
	assert_int_equal(f->s.state, RECV_SESSION_CLOSING);
}

/* A reader waiting for the log is answered every quarter peer timeout and
 * waits again at once: it is heard from, never probed. */
static void a_waiting_reader_is_not_probed(void **state)
{
	struct fixture *f = *state;
	start_with(f, false, NULL);
	f->s.cfg.verify = true;
	recv_session_on_established(&f->s, 1100);
	struct rs_msg wait = {.type = RS_MSG_WAIT, .length = 1, .seq = 3};
	recv_session_on_message(&f->s, 0, &wait, 2000);
	for (int64_t t = 2000; t <= 30000; t += 200) {
		unsigned answered = f->link.replies;
		recv_session_on_timer(&f->s, t);
		if (f->link.replies > answered)
			recv_session_on_message(&f->s, 0, &wait, t);
	}
	/* every 2.5 s, on the 200 ms ticks: 2.6 s apart */
	assert_int_equal(f->link.replies, 10);
	assert_int_equal(f->link.probes, 0);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

/* The window key a reply handed out, checked against the fake's newest,
 * with the newest window's end. */
static uint32_t handed_key(const struct fixture *f)
{
	assert_int_equal(f->link.last_reply.key, f->link.key[f->link.newest]);
	assert_int_equal(f->link.last_reply.key_end,
			 f->link.end[f->link.newest]);
	return f->link.last_reply.key;
}

/* A windowed writer asks for its first key: one window from the head to
 * the end, the other reaching nothing. */
static void a_windowed_writer_gets_a_key_over_the_tail(void **state)
{
	struct fixture *f = *state;
	start_windowed(f, false, &recv_method_gpspm, true);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg w = {.type = RS_MSG_WINDOW, .seq = 7};
	recv_session_on_message(&f->s, 0, &w, 1200);
	assert_int_equal(f->link.last_reply.type, RS_MSG_WINDOW_DONE);
	assert_int_equal(f->link.last_reply.status, RS_MSG_OK);
	assert_int_equal(f->link.last_reply.offset, f->t.start);
	assert_int_equal(f->link.last_reply.length, FAKE_REACH);
	uint32_t k1 = handed_key(f);
	assert_int_not_equal(k1, 0);
	assert_int_equal(f->link.head[f->link.newest], f->t.start);
	assert_int_equal(f->link.key[f->link.newest ^ 1u], 0);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

/* A writer whose next batch does not fit its window, nothing in flight,
 * asks for room: the windows start over at the head with that much. A
 * commit's length is room asked for too (the next region fits batches of
 * that size). */
static void a_writer_asks_for_room(void **state)
{
	struct fixture *f = *state;
	start_windowed(f, false, &recv_method_gpspm, true);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg w = {.type = RS_MSG_WINDOW, .length = 1u << 20};
	recv_session_on_message(&f->s, 0, &w, 1200);
	assert_int_equal(f->link.last_need, 1u << 20);
	assert_int_equal(f->link.last_reply.length, 1u << 20);
	uint32_t k1 = handed_key(f);
	assert_int_equal(f->link.key[f->link.newest ^ 1u], 0);
	struct rs_msg m = commit_of(f, 1, 300);
	m.key = k1;
	recv_session_on_message(&f->s, 0, &m, 1200);
	assert_int_equal(f->link.last_need, 300);
	assert_int_equal(f->link.last_reply.key_end,
			 f->t.start + 300 + FAKE_REACH);
	handed_key(f);
}

/* A windowed gpspm writer, connected, that asked for its first key: the
 * key. */
static uint32_t windowed_writer_keyed(struct fixture *f)
{
	start_windowed(f, false, &recv_method_gpspm, true);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg w = {.type = RS_MSG_WINDOW};
	recv_session_on_message(&f->s, 0, &w, 1200);
	return handed_key(f);
}

/* Batches in flight still carry the key before the newest; a commit on
 * the newest moves the other window up to the new head, so what is
 * committed leaves the writer's reach; a key two moves old is refused. */
static void commits_move_the_windows_up(void **state)
{
	struct fixture *f = *state;
	uint32_t k1 = windowed_writer_keyed(f);
	struct rs_msg m = commit_of(f, 1, 100);
	m.key = k1;
	recv_session_on_message(&f->s, 0, &m, 1200);
	uint32_t k2 = handed_key(f);
	assert_int_not_equal(k2, k1);
	assert_int_equal(f->link.head[f->link.newest], f->t.start + 100);
	for (uint32_t seq = 2; seq < 5; seq++) { /* still in flight on k1 */
		m = commit_of(f, seq, 100);
		m.key = k1;
		recv_session_on_message(&f->s, 0, &m, 1200);
		assert_int_equal(f->link.last_reply.status, RS_MSG_OK);
		assert_int_equal(handed_key(f), k2);
	}
	assert_int_equal(f->link.moves, 2);
	m = commit_of(f, 5, 100);
	m.key = k2; /* the sender heard of k2: k1's window moves */
	recv_session_on_message(&f->s, 0, &m, 1200);
	uint32_t k3 = handed_key(f);
	assert_int_equal(f->link.head[f->link.newest], f->t.start + 500);
	assert_int_equal(f->link.head[f->link.newest ^ 1u], f->t.start + 100);
	assert_int_equal(f->link.key[f->link.newest ^ 1u], k2);
	assert_int_not_equal(k3, k2);
	/* k1's window reached all five batches when it moved. */
	assert_int_equal(f->s.keys.reach_bytes_max, 500);
	m = commit_of(f, 6, 100);
	m.key = k1; /* dead: no honest sender writes with it */
	recv_session_on_message(&f->s, 0, &m, 1200);
	assert_int_equal(f->link.last_reply.status, RS_MSG_BAD_REQUEST);
	refused(f);
	assert_int_equal(recv_pmem_target_write_offset(&f->t),
			 f->t.start + 500);
}

/* A windowed writer's first commit (100 bytes, with its first key, put
 * in *k1), then a keepalive naming the key that came back (*k2): the
 * first key's window moves past the commit. Returns the commit. */
static struct rs_msg first_commit_then_keepalive(struct fixture *f,
						 uint32_t *k1, uint32_t *k2)
{
	*k1 = windowed_writer_keyed(f);
	struct rs_msg m = commit_of(f, 1, 100);
	m.key = *k1;
	recv_session_on_message(&f->s, 0, &m, 1200);
	*k2 = handed_key(f);
	struct rs_msg ka = {.type = RS_MSG_KEEPALIVE, .seq = 2, .key = *k2};
	recv_session_on_message(&f->s, 0, &ka, 1210);
	return m;
}

/* A commit delivered twice (seen on Soft-RoCE under a storm of
 * retransmissions), after a keepalive moved its key's window away: the
 * second copy is left unanswered and the session serves on; a commit
 * with a seq of its own and that dead key is still refused. */
static void a_commit_delivered_twice_is_ignored(void **state)
{
	struct fixture *f = *state;
	uint32_t k1, k2;
	struct rs_msg m = first_commit_then_keepalive(f, &k1, &k2);
	unsigned replies = f->link.replies;
	recv_session_on_message(&f->s, 0, &m, 1220); /* again */
	assert_int_equal(f->link.replies, replies);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
	assert_int_equal(f->s.again, 1);
	assert_int_equal(f->s.commits, 1);
	assert_int_equal(recv_pmem_target_write_offset(&f->t),
			 f->t.start + 100);
	struct rs_msg next = commit_of(f, 3, 100);
	next.key = handed_key(f);
	recv_session_on_message(&f->s, 0, &next, 1230);
	assert_int_equal(f->link.last_reply.status, RS_MSG_OK);
	assert_int_equal(recv_pmem_target_write_offset(&f->t),
			 f->t.start + 200);
	struct rs_msg late = commit_of(f, 4, 100);
	late.key = k1; /* a new request on a dead key */
	recv_session_on_message(&f->s, 0, &late, 1240);
	assert_int_equal(f->link.last_reply.status, RS_MSG_BAD_REQUEST);
	refused(f);
}

/* A stream that pauses names its newest key: the window of the one before
 * moves past what was committed and its new key comes back. Naming that
 * one moves nothing (both windows start at the head): the same key comes
 * back, so an idle writer's keepalives do not chase new keys. */
static void a_pause_moves_the_windows_once(void **state)
{
	struct fixture *f = *state;
	uint32_t k1, k2;
	first_commit_then_keepalive(f, &k1, &k2);
	struct rs_msg ka;
	assert_int_equal(f->link.last_reply.type, RS_MSG_KEEPALIVE_DONE);
	uint32_t k3 = handed_key(f);
	assert_int_not_equal(k3, k2);
	assert_int_equal(f->link.moves, 3);
	assert_int_equal(f->link.head[0], f->t.start + 100);
	assert_int_equal(f->link.head[1], f->t.start + 100);
	for (uint32_t seq = 3; seq < 6; seq++) {
		ka = (struct rs_msg){
		    .type = RS_MSG_KEEPALIVE, .seq = seq, .key = k3};
		recv_session_on_message(&f->s, 0, &ka, 1220);
		assert_int_equal(f->link.last_reply.type,
				 RS_MSG_KEEPALIVE_DONE);
		assert_int_equal(handed_key(f), k3);
	}
	assert_int_equal(f->link.moves, 3);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

/* ---- a writer's keys (rpma-send's replicas/replica_keys.h) against it ---- */

/* The writer hears the session's last reply, at now_ns. */
static void writer_hears(const struct fixture *f, struct replica_keys *k,
			 uint64_t now_ns)
{
	replica_keys_heard(k, &f->link.last_reply, now_ns);
}

/* The writer's commit of 100 bytes with its newest key reaches the
 * session. */
static void writer_commits(struct fixture *f, struct replica_keys *k,
			   uint32_t seq, bool lone)
{
	struct rs_msg m = commit_of(f, seq, 100);
	m.key = k->ids.newest;
	m.flags = lone ? RS_MSG_LONE : 0;
	recv_session_on_message(&f->s, 0, &m, 1200 + seq);
	assert_int_equal(f->link.last_reply.status, RS_MSG_OK);
}

/* A keepalive the writer sends now, naming a key or probing the link; a
 * named key reaches the session (a probe never wakes it). */
static void writer_keepalive(struct fixture *f, struct replica_keys *k,
			     uint32_t seq, uint64_t now_ns)
{
	uint32_t key = replica_keys_keepalive_sent(k, now_ns);
	if (!key)
		return;
	struct rs_msg ka = {.type = RS_MSG_KEEPALIVE, .seq = seq, .key = key};
	recv_session_on_message(&f->s, 0, &ka, 1200 + seq);
}

#define MS 1000000ull
#define PEER_TIMEOUT_NS (10000 * MS)

/* A windowed writer got its first key (k1), committed with it, and heard
 * at 1 ms the new key (k2) the reply brought, named by nothing yet. */
static void writer_heard_a_new_key(struct fixture *f, struct replica_keys *k)
{
	replica_keys_start(k);
	windowed_writer_keyed(f);
	writer_hears(f, k, 0);
	replica_keys_posted(k, false);
	writer_commits(f, k, 1, false);
	writer_hears(f, k, 1 * MS);
}

/* A writer names a new key in a keepalive, then asks for room (a request
 * it waits for): the keepalive's answer comes first and is heard on the
 * way, so the next keepalive goes when due; left unanswered, the writer
 * would send none and give the link up half a peer timeout later. */
static void a_keepalive_answered_during_a_request_frees_the_next(void **state)
{
	struct fixture *f = *state;
	struct replica_keys k;
	writer_heard_a_new_key(f, &k);
	uint64_t at = replica_keys_keepalive_at(&k, 1 * MS, PEER_TIMEOUT_NS);
	assert_int_equal(at, 3 * MS); /* the new key named soon */
	writer_keepalive(f, &k, 2, at);
	assert_int_equal(replica_keys_keepalive_at(&k, at, PEER_TIMEOUT_NS),
			 0); /* one at a time */
	struct rs_msg w = {.type = RS_MSG_WINDOW, .seq = 3, .length = 4096};
	writer_hears(f, &k, 4 * MS); /* the keepalive's answer */
	recv_session_on_message(&f->s, 0, &w, 1204);
	writer_hears(f, &k, 5 * MS); /* the window's: a new key */
	assert_int_equal(replica_keys_keepalive_at(&k, 5 * MS, PEER_TIMEOUT_NS),
			 7 * MS);
	assert_true(recv_window_keys_holds(&f->s.keys, k.ids.newest));
	/* both ends hold the same two keys by the same rule */
	assert_int_equal(k.ids.newest, f->s.keys.ids.newest);
	assert_int_equal(k.ids.before, f->s.keys.ids.before);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

/* A writer names its new key in a keepalive and, before the answer, posts
 * a lone commit. The keepalive's answer brings a newer key; the lone
 * commit's landing revokes it. Until the lone reply the writer names no
 * key (a probe keeps the link), then names only what the session holds. */
static void a_keepalive_behind_a_lone_commit_names_no_key(void **state)
{
	struct fixture *f = *state;
	struct replica_keys k;
	writer_heard_a_new_key(f, &k);
	writer_keepalive(f, &k, 2, 3 * MS);
	struct rs_msg ka_done = f->link.last_reply; /* its answer: k3 */
	assert_int_equal(ka_done.type, RS_MSG_KEEPALIVE_DONE);
	replica_keys_posted(&k, true); /* the lone commit, with k2 */
	writer_commits(f, &k, 3, true);
	uint32_t k3 = ka_done.key;
	assert_false(recv_window_keys_holds(&f->s.keys, k3)); /* revoked */
	/* The writer hears the keepalive's answer before the lone reply. */
	replica_keys_heard(&k, &ka_done, 4 * MS);
	assert_int_equal(k.ids.newest, k3);
	uint64_t at = replica_keys_keepalive_at(&k, 3 * MS, PEER_TIMEOUT_NS);
	assert_int_equal(at, 3 * MS + PEER_TIMEOUT_NS / 4);	  /* not soon */
	assert_int_equal(replica_keys_keepalive_sent(&k, at), 0); /* probe */
	replica_keys_probe_answered(&k);
	writer_hears(f, &k, at + 1 * MS); /* the lone reply: k4 */
	assert_true(recv_window_keys_holds(&f->s.keys, k.ids.newest));
	assert_int_equal(k.named, k.ids.newest); /* nothing left to name */
	/* both ends hold the same keys by the same rule: k4 alone */
	assert_int_equal(k.ids.newest, f->s.keys.ids.newest);
	assert_int_equal(k.ids.before, f->s.keys.ids.before);
	assert_int_equal(k.ids.before, 0);
	assert_int_equal(f->s.state, RECV_SESSION_SERVING);
}

/* A lone commit of 100 bytes written with key: committed, the reply's key
 * new and reaching from the new head (head_after), the other window
 * revoked. Returns the new key. */
static uint32_t lone_commit(struct fixture *f, uint32_t seq, uint32_t key,
			    uint64_t head_after)
{
	uint32_t before = handed_key(f);
	struct rs_msg m = commit_of(f, seq, 100);
	m.key = key;
	m.flags = RS_MSG_LONE;
	recv_session_on_message(&f->s, 0, &m, 1200 + seq);
	assert_int_equal(f->link.last_reply.status, RS_MSG_OK);
	uint32_t k = handed_key(f);
	assert_int_not_equal(k, before);
	assert_int_equal(f->link.head[f->link.newest], head_after);
	assert_int_equal(f->link.key[f->link.newest ^ 1u], 0); /* revoked */
	return k;
}

/* A lone commit (nothing else in flight, nothing posted before its reply)
 * moves both windows: the reply's key is the only one that reaches, from
 * the new head, and the key it was written with is dead at once; no
 * keepalive is needed to move anything, and its own moves nothing. */
static void a_lone_commit_moves_both_windows(void **state)
{
	struct fixture *f = *state;
	uint32_t k1 = windowed_writer_keyed(f);
	uint32_t k2 = lone_commit(f, 1, k1, f->t.start + 100);
	assert_false(recv_window_keys_holds(&f->s.keys, k1));
	unsigned moves = f->link.moves;
	struct rs_msg ka = {.type = RS_MSG_KEEPALIVE, .seq = 2, .key = k2};
	recv_session_on_message(&f->s, 0, &ka, 1210);
	assert_int_equal(handed_key(f), k2);
	assert_int_equal(f->link.moves, moves);
	/* A lone commit on the key before the newest resets all the same. */
	struct rs_msg m = commit_of(f, 3, 100);
	m.key = k2;
	recv_session_on_message(&f->s, 0, &m, 1220);
	assert_int_not_equal(handed_key(f), k2);
	lone_commit(f, 4, k2, f->t.start + 300);
	m = commit_of(f, 5, 100);
	m.key = k1; /* the writer said it would not */
	recv_session_on_message(&f->s, 0, &m, 1240);
	assert_int_equal(f->link.last_reply.status, RS_MSG_BAD_REQUEST);
	refused(f);
	assert_int_equal(recv_pmem_target_write_offset(&f->t),
			 f->t.start + 300);
}

/* A key where none was handed out, or none where one was, is refused. */
static void commit_keys_must_match_the_grant(void **state)
{
	struct fixture *f = *state;
	start_windowed(f, false, &recv_method_gpspm, true);
	recv_session_on_established(&f->s, 1100);
	struct rs_msg m = commit_of(f, 0, 100); /* before asking a key */
	recv_session_on_message(&f->s, 0, &m, 1200);
	assert_int_equal(f->link.last_reply.status, RS_MSG_BAD_REQUEST);
	refused(f);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), f->t.start);

	start_windowed(f, false, &recv_method_gpspm, false);
	recv_session_on_established(&f->s, 1100);
	m = commit_of(f, 0, 100);
	m.key = 5;
	recv_session_on_message(&f->s, 0, &m, 1200);
	assert_int_equal(f->link.last_reply.status, RS_MSG_BAD_REQUEST);
	refused(f);
	struct rs_msg w = {.type = RS_MSG_WINDOW};
	start_windowed(f, false, &recv_method_gpspm, false);
	recv_session_on_established(&f->s, 1100);
	recv_session_on_message(&f->s, 0, &w, 1200);
	assert_int_equal(f->link.last_reply.type, RS_MSG_WINDOW_DONE);
	assert_int_equal(f->link.last_reply.status, RS_MSG_BAD_REQUEST);
	refused(f);
	assert_int_equal(f->link.moves, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(serves_commits_without_a_key, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(authenticates_then_grants, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(wrong_key_closes_without_a_grant,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(commit_before_auth_is_refused,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(deadlines_end_silent_senders, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		message_before_established_is_served, setup, teardown),
	    cmocka_unit_test_setup_teardown(refused_request_closes, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_refusal_lingers_a_second_at_most,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		commits_alone_are_counted_from_the_offset, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_word_stored_while_sealed_ends_the_writer, setup, teardown),
	    cmocka_unit_test_setup_teardown(reader_waits_for_the_log_to_grow,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_writer_does_not_wait, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(keepalives_are_answered, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		silence_is_probed_a_failed_probe_ends, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		time_the_thread_could_not_run_is_no_silence, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_word_after_a_probe_answers_for_the_link, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		an_unanswered_probe_ends_at_the_peer_timeout, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_waiting_reader_is_not_probed,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_windowed_writer_gets_a_key_over_the_tail, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_writer_asks_for_room, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_commit_delivered_twice_is_ignored,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(commits_move_the_windows_up, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_lone_commit_moves_both_windows,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_pause_moves_the_windows_once,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_keepalive_answered_during_a_request_frees_the_next, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_keepalive_behind_a_lone_commit_names_no_key, setup, teardown),
	    cmocka_unit_test_setup_teardown(commit_keys_must_match_the_grant,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(commits_by_its_method_only, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
