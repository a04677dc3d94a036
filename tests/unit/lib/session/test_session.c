/* The session's handshake, both halves, over a fake of the RDMA layer
 * (fake_rdma.h): what a sender asks and makes of the answer (a grant, a
 * refusal, an older receiver, a challenge), what a receiver answers, and
 * that nothing outlives a session or a refused connection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "fake_rdma.h"
#include "proto/auth.h"
#include "proto/descriptor.h"
#include "rdma/mr.h"
#include "rdma/peer.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 3

static int reset(void **state)
{
	(void)state;
	fake_rdma_reset();
	return 0;
}

static void nothing_alive(void)
{
	assert_int_equal(fake.conns, 0);
	assert_int_equal(fake.peers, 0);
	assert_int_equal(fake.mrs, 0);
}

static struct rs_accept_info gpspm_grant(uint8_t version)
{
	return (struct rs_accept_info){
	    .version = version,
	    .methods = RS_METHOD_BIT(RS_METHOD_GPSPM),
	    .credits = SLOTS,
	    .data = {.addr = 0x10000,
		     .length = 1u << 20,
		     .rkey = 7,
		     .usage = RS_MR_USAGE_WRITE_DST},
	    .start_offset = 8192,
	    .end_offset = 8192 + (1u << 20),
	    .write_offset_value = 8192 + 100,
	    .peer_timeout_ms = 10000,
	};
}

/* ---- what the peer says ---- */

static void grant_data(struct rs_private_data *d, uint8_t version)
{
	struct rs_accept_info g = gpspm_grant(version);
	d->len = rs_accept_info_encode(&g, d->bytes, RS_ACCEPT_PRIVATE_MAX);
	assert_int_not_equal(d->len, 0);
}

static void reject_data(struct rs_private_data *d,
			const struct rs_reject_info *info)
{
	d->len = rs_reject_encode(info, d->bytes, sizeof(d->bytes));
	assert_int_not_equal(d->len, 0);
}

static const struct rs_challenge challenge = {.version = RS_PROTO_VERSION,
					      .nonce = {1, 2, 3, 4}};

static void challenge_data(struct rs_private_data *d)
{
	d->len = rs_challenge_encode(&challenge, d->bytes, sizeof(d->bytes));
}

/* ---- the sender's half ---- */

static const struct rs_auth_key key = {.bytes = "0123456789abcdef", .len = 16};

static struct rs_session_request request(void)
{
	return (struct rs_session_request){
	    .host = "h",
	    .port = "7204",
	    .timeout_ms = 1000,
	    .req = {.methods = RS_METHOD_BIT(RS_METHOD_GPSPM) |
			       RS_METHOD_BIT(RS_METHOD_FLUSH),
		    .log_name = "app"},
	    .slots = SLOTS,
	    .sends_per_slot = 2,
	};
}

/* The connect request the sender made, the n-th. */
static struct rs_connect_req sent_request(unsigned n)
{
	struct rs_connect_req req;
	assert_int_equal(rs_connect_req_decode(fake.requests[n].bytes,
					       fake.requests[n].len, &req, 0),
			 0);
	return req;
}

/* A connect that succeeds: its session. */
static struct rs_session *connects(const struct rs_session_request *r)
{
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(r, &s, &err), 0);
	assert_non_null(s);
	return s;
}

/* A connect that fails with code, a message that says what, and nothing
 * left behind. */
static void connect_fails(const struct rs_session_request *r, int code,
			  const char *what)
{
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(r, &s, &err), code);
	assert_null(s);
	assert_non_null(strstr(err.msg, what));
	nothing_alive();
}

static void takes_the_grant_of_the_accept(void **state)
{
	(void)state;
	grant_data(&fake.answers[0].data, RS_PROTO_VERSION);
	struct rs_session_request r = request();
	struct rs_session *s = connects(&r);
	struct rs_connect_req req = sent_request(0);
	assert_int_equal(req.version, RS_PROTO_VERSION);
	assert_string_equal(req.log_name, "app");
	assert_int_equal(req.methods, r.req.methods);
	assert_false(req.flags & RS_CONNECT_AUTH);
	/* A receive on every slot and the control slot, from the start. */
	assert_int_equal(fake.nrecvs, SLOTS + 1);
	for (unsigned i = 0; i <= SLOTS; i++)
		assert_int_equal(fake.recvs[i].wr_id, i);
	assert_int_equal(rs_session_version(s), RS_PROTO_VERSION);
	assert_int_equal(rs_session_grant(s)->write_offset_value, 8192 + 100);
	assert_int_equal(rs_session_control_slot(s), SLOTS);
	rs_session_delete(&s);
	assert_null(s);
	nothing_alive();
}

static void a_busy_receiver_is_busy(void **state)
{
	(void)state;
	struct rs_reject_info busy = {.reason = RS_REJECT_BUSY,
				      .retry_ms = 300};
	fake.answers[0].rc = RS_E_REJECTED;
	reject_data(&fake.answers[0].data, &busy);
	struct rs_reject_info refused = {0};
	struct rs_session_request r = request();
	r.refused = &refused;
	connect_fails(&r, RS_E_BUSY, "h:7204/app refused the connection: ");
	assert_int_equal(refused.reason, RS_REJECT_BUSY);
	assert_int_equal(refused.retry_ms, 300);
}

static void a_refusal_names_the_logs_to_use(void **state)
{
	(void)state;
	struct rs_reject_info none = {.reason = RS_REJECT_NO_SUCH_LOG,
				      .logs = "a,b"};
	fake.answers[0].rc = RS_E_REJECTED;
	reject_data(&fake.answers[0].data, &none);
	struct rs_session_request r = request();
	connect_fails(&r, RS_E_REJECTED, "(logs you may use: a,b)");
}

/* The CM's own reject, without our private data: nobody listens. */
static void an_unreadable_refusal_is_nobody_listening(void **state)
{
	(void)state;
	fake.answers[0].rc = RS_E_REJECTED;
	struct rs_session_request r = request();
	connect_fails(&r, RS_E_UNREACHABLE,
		      "h:7204/app refused the connection");
}

/* A version 9 receiver refuses a version 10 request: asked again in 9. */
static void an_older_receiver_is_asked_again_in_its_version(void **state)
{
	(void)state;
	struct rs_reject_info old = {.version = 9, .reason = RS_REJECT_VERSION};
	fake.answers[0].rc = RS_E_REJECTED;
	reject_data(&fake.answers[0].data, &old);
	grant_data(&fake.answers[1].data, 9);
	struct rs_session_request r = request();
	struct rs_session *s = connects(&r);
	assert_int_equal(fake.connects, 2);
	assert_int_equal(sent_request(0).version, RS_PROTO_VERSION);
	assert_int_equal(sent_request(1).version, 9);
	assert_int_equal(rs_session_version(s), 9);
	rs_session_delete(&s);
	nothing_alive();
}

/* Upgraded between our two asks: refused in 10 (it spoke 9), then in 9
 * (it speaks 9 to 10 now). The second refusal is the last, and says why
 * (its line was empty). */
static void a_second_version_refusal_says_why(void **state)
{
	(void)state;
	struct rs_reject_info old = {.version = 9, .reason = RS_REJECT_VERSION};
	struct rs_reject_info upgraded = {.version = 10,
					  .reason = RS_REJECT_VERSION};
	fake.answers[0].rc = RS_E_REJECTED;
	reject_data(&fake.answers[0].data, &old);
	fake.answers[1].rc = RS_E_REJECTED;
	reject_data(&fake.answers[1].data, &upgraded);
	struct rs_session_request r = request();
	connect_fails(&r, RS_E_VERSION,
		      "h:7204/app refused protocol version 9, saying it "
		      "speaks 9 to 10: it changed while we asked; run again");
	assert_int_equal(fake.connects, 2);
}

static void a_challenge_is_answered_with_the_key(void **state)
{
	(void)state;
	challenge_data(&fake.answers[0].data);
	grant_data(&fake.incoming[fake.nincoming++], RS_PROTO_VERSION);
	struct rs_session_request r = request();
	r.key = &key;
	struct rs_session *s = connects(&r);
	assert_true(sent_request(0).flags & RS_CONNECT_AUTH);
	/* Its answer, on the control slot: the MAC over the nonce. */
	assert_int_equal(fake.nsends, 1);
	struct rs_msg answer;
	assert_int_equal(
	    rs_msg_decode(fake.sends[0].bytes, fake.sends[0].len, &answer, 0),
	    0);
	assert_int_equal(answer.type, RS_MSG_AUTH);
	struct rs_session_token none = {{0}};
	assert_true(rs_auth_check(&key, challenge.nonce, &none, answer.mac));
	/* The grant came as a message; its receive is posted again. */
	assert_int_equal(rs_session_grant(s)->credits, SLOTS);
	assert_int_equal(fake.nrecvs, SLOTS + 1);
	rs_session_delete(&s);
	nothing_alive();
}

static void a_challenge_without_a_key_fails(void **state)
{
	(void)state;
	challenge_data(&fake.answers[0].data);
	struct rs_session_request r = request();
	connect_fails(&r, RS_E_AUTH, "h:7204/app requires an auth key");
}

/* Flush where the connection cannot do it: not offered, and insisting on
 * it fails before asking. */
static void flush_only_where_the_connection_can(void **state)
{
	(void)state;
	fake.flush_why_not = "no FLUSH here";
	grant_data(&fake.answers[0].data, RS_PROTO_VERSION);
	struct rs_session_request r = request();
	struct rs_session *s = connects(&r);
	assert_int_equal(sent_request(0).methods,
			 RS_METHOD_BIT(RS_METHOD_GPSPM));
	rs_session_delete(&s);
	r.req.method = RS_METHOD_FLUSH;
	fake.connects = 0;
	connect_fails(&r, RS_E_REJECTED,
		      "method flush cannot be used from here: no FLUSH here");
	assert_int_equal(fake.connects, 0);
}

/* ---- the receiver's half ---- */

static const struct rs_session_token presented = {{9, 8, 7}};

/* A receiver's side of a test: its peer (made as the receiver makes it),
 * a connection a listener handed over, the grant and the session. */
struct receiver {
	struct rs_peer *peer;
	struct rs_conn *conn;
	struct rs_accept_info grant;
	struct rs_session *s;
};

static int receiver_setup(void **state)
{
	fake_rdma_reset();
	struct receiver *rv = calloc(1, sizeof(*rv));
	struct rs_conn *first = fake_conn_incoming();
	int rc = rs_peer_new(first, &rv->peer, 0);
	rs_conn_delete(&first);
	rv->conn = fake_conn_incoming();
	rv->grant = gpspm_grant(0);
	*state = rv;
	return rc;
}

/* Everything gone once the session and the peer are. */
static int receiver_teardown(void **state)
{
	struct receiver *rv = *state;
	rs_session_delete(&rv->s);
	rs_conn_delete(&rv->conn);
	rs_peer_delete(&rv->peer);
	free(rv);
	return fake.conns || fake.peers || fake.mrs ? -1 : 0;
}

/* The accept of rv's connection, with key k (NULL: none). */
static struct rs_session_accept accept_of(const struct receiver *rv,
					  const struct rs_auth_key *k)
{
	return (struct rs_session_accept){.version = RS_PROTO_VERSION,
					  .peer = rv->peer,
					  .slots = SLOTS,
					  .busy_poll = true,
					  .access = k ? 0 : RS_MR_REMOTE_WRITE,
					  .key = k,
					  .grant = &rv->grant,
					  .presented = &presented};
}

/* rv's connection accepted, with key k (NULL: none). */
static void accepted(struct receiver *rv, const struct rs_auth_key *k)
{
	struct rs_session_accept a = accept_of(rv, k);
	struct rs_error err = {0};
	assert_int_equal(rs_session_accept(&rv->conn, &a, &rv->s, &err), 0);
	assert_null(rv->conn); /* the session's now */
}

static void accepts_with_the_grant(void **state)
{
	struct receiver *rv = *state;
	accepted(rv, 0);
	assert_true(fake.quiet_sends && fake.busy_poll);
	assert_int_equal(fake.access, RS_MR_REMOTE_WRITE);
	struct rs_accept_info sent;
	assert_int_equal(rs_accept_info_decode(fake.accept_data.bytes,
					       fake.accept_data.len, &sent, 0),
			 0);
	assert_int_equal(sent.version, RS_PROTO_VERSION);
	assert_int_equal(sent.write_offset_value, rv->grant.write_offset_value);
	/* Receives of a message each: a larger one fails its receive. */
	assert_int_equal(fake.nrecvs, SLOTS + 1);
	assert_int_equal(fake.recvs[0].len, RS_MSG_SIZE);
}

/* A message into a slot: decoded, the slot's receive posted again, and
 * traced. */
static void takes_a_message_into_its_slot(void **state)
{
	struct receiver *rv = *state;
	accepted(rv, 0);
	struct rs_msg commit = {
	    .type = RS_MSG_COMMIT, .seq = 5, .offset = 8192, .length = 64};
	struct rs_private_data *in = &fake.incoming[fake.nincoming++];
	in->len = rs_msg_encode(&commit, in->bytes, sizeof(in->bytes));
	struct rs_completion wc;
	assert_int_equal(
	    rs_conn_next_completion(rs_session_conn(rv->s), &wc, 0),
	    RS_WAIT_COMPLETION);
	struct rs_msg msg;
	uint16_t slot = 99;
	/* RPMA_TRACE_MESSAGES is set for this program (main): the take is
	 * a line on stderr, caught in a file here */
	FILE *caught = tmpfile();
	assert_non_null(caught);
	int saved = dup(STDERR_FILENO);
	dup2(fileno(caught), STDERR_FILENO);
	int rc = rs_session_take(rv->s, &wc, &msg, &slot, 0);
	dup2(saved, STDERR_FILENO);
	close(saved);
	assert_int_equal(rc, 0);
	assert_int_equal(slot, 0);
	assert_int_equal(msg.seq, 5);
	assert_int_equal(fake.nrecvs, SLOTS + 1);
	assert_int_equal(fake.recvs[SLOTS].wr_id, 0);
	char line[160] = "", want[64];
	rewind(caught);
	assert_non_null(fgets(line, sizeof(line), caught));
	fclose(caught);
	snprintf(want, sizeof(want), "rpma-trace: %ld take type %u seq 5 at ",
		 (long)getpid(), (unsigned)RS_MSG_COMMIT);
	assert_memory_equal(line, want, strlen(want));
}

/* What a sender with key k answers to the challenge the receiver sent. */
static struct rs_msg answer_with(const struct rs_auth_key *k)
{
	struct rs_challenge sent;
	assert_int_equal(rs_challenge_decode(fake.accept_data.bytes,
					     fake.accept_data.len, &sent, 0),
			 0);
	struct rs_msg answer = {.type = RS_MSG_AUTH};
	rs_auth_mac(k, sent.nonce, &presented, answer.mac);
	return answer;
}

static void with_a_key_the_grant_follows_the_answer(void **state)
{
	struct receiver *rv = *state;
	accepted(rv, &key);
	struct rs_error err = {0};
	struct rs_msg right = answer_with(&key);
	assert_int_equal(rs_session_check_auth(rv->s, &right, &err), 0);
	struct rs_auth_key other = key;
	other.bytes[0] ^= 1;
	struct rs_msg wrong = answer_with(&other);
	assert_int_equal(rs_session_check_auth(rv->s, &wrong, &err), RS_E_AUTH);
	assert_string_equal(err.msg, "wrong auth key");
	struct rs_msg commit = {.type = RS_MSG_COMMIT};
	assert_int_equal(rs_session_check_auth(rv->s, &commit, &err),
			 RS_E_AUTH);
	assert_string_equal(err.msg, "it did not answer the auth challenge");
	/* The grant as a message, in the request's version. */
	assert_int_equal(rs_session_send_grant(rv->s, &rv->grant), 0);
	struct rs_accept_info sent;
	assert_int_equal(rs_accept_info_decode(fake.sends[0].bytes,
					       fake.sends[0].len, &sent, 0),
			 0);
	assert_int_equal(sent.version, RS_PROTO_VERSION);
}

/* The reject the receiver sent. */
static struct rs_reject_info sent_reject(void)
{
	assert_true(fake.rejected);
	struct rs_reject_info info;
	assert_int_equal(rs_reject_decode(fake.reject_data.bytes,
					  fake.reject_data.len, &info, 0),
			 0);
	return info;
}

static void refused_between_the_two_steps(void **state)
{
	struct receiver *rv = *state;
	struct rs_session_accept a = accept_of(rv, 0);
	assert_int_equal(rs_session_prepare(&rv->conn, &a, &rv->s, 0), 0);
	rs_session_refuse_prepared(&rv->s, RS_REJECT_BUSY);
	assert_null(rv->s);
	assert_false(fake.accepted);
	assert_int_equal(sent_reject().reason, RS_REJECT_BUSY);
}

static void no_queue_pair_is_refused(void **state)
{
	struct receiver *rv = *state;
	fake.create_qp_rc = RS_E_NOMEM;
	struct rs_session_accept a = accept_of(rv, 0);
	struct rs_error err = {0};
	assert_int_equal(rs_session_prepare(&rv->conn, &a, &rv->s, &err),
			 RS_E_NOMEM);
	assert_null(rv->conn);
	assert_null(rv->s);
	assert_int_equal(sent_reject().reason, RS_REJECT_INTERNAL);
}

#define SENDER_TEST(f) cmocka_unit_test_setup(f, reset)
#define RECEIVER_TEST(f)                                                       \
	cmocka_unit_test_setup_teardown(f, receiver_setup, receiver_teardown)

int main(void)
{
	/* each message sent and taken traced (takes_a_message_into_its_slot) */
	setenv("RPMA_TRACE_MESSAGES", "1", 1);
	const struct CMUnitTest tests[] = {
	    SENDER_TEST(takes_the_grant_of_the_accept),
	    SENDER_TEST(a_busy_receiver_is_busy),
	    SENDER_TEST(a_refusal_names_the_logs_to_use),
	    SENDER_TEST(an_unreadable_refusal_is_nobody_listening),
	    SENDER_TEST(an_older_receiver_is_asked_again_in_its_version),
	    SENDER_TEST(a_second_version_refusal_says_why),
	    SENDER_TEST(a_challenge_is_answered_with_the_key),
	    SENDER_TEST(a_challenge_without_a_key_fails),
	    SENDER_TEST(flush_only_where_the_connection_can),
	    RECEIVER_TEST(accepts_with_the_grant),
	    RECEIVER_TEST(takes_a_message_into_its_slot),
	    RECEIVER_TEST(with_a_key_the_grant_follows_the_answer),
	    RECEIVER_TEST(refused_between_the_two_steps),
	    RECEIVER_TEST(no_queue_pair_is_refused),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
