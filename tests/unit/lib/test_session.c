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
#include "rdma/peer.h"
#include "session/session.h"

#include <string.h>

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

static void takes_the_grant_of_the_accept(void **state)
{
	(void)state;
	grant_data(&fake.answers[0].data, RS_PROTO_VERSION);
	struct rs_session_request r = request();
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(&r, &s, &err), 0);
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
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(&r, &s, &err), RS_E_BUSY);
	assert_null(s);
	assert_non_null(strstr(err.msg, "h:7204/app refused the connection: "));
	assert_int_equal(refused.reason, RS_REJECT_BUSY);
	assert_int_equal(refused.retry_ms, 300);
	nothing_alive();
}

static void a_refusal_names_the_logs_to_use(void **state)
{
	(void)state;
	struct rs_reject_info none = {.reason = RS_REJECT_NO_SUCH_LOG,
				      .logs = "a,b"};
	fake.answers[0].rc = RS_E_REJECTED;
	reject_data(&fake.answers[0].data, &none);
	struct rs_session_request r = request();
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(&r, &s, &err), RS_E_REJECTED);
	assert_non_null(strstr(err.msg, "(logs you may use: a,b)"));
	nothing_alive();
}

/* The CM's own reject, without our private data: nobody listens. */
static void an_unreadable_refusal_is_nobody_listening(void **state)
{
	(void)state;
	fake.answers[0].rc = RS_E_REJECTED;
	struct rs_session_request r = request();
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(&r, &s, &err), RS_E_UNREACHABLE);
	assert_string_equal(err.msg, "h:7204/app refused the connection");
	nothing_alive();
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
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(&r, &s, &err), 0);
	assert_int_equal(fake.connects, 2);
	assert_int_equal(sent_request(0).version, RS_PROTO_VERSION);
	assert_int_equal(sent_request(1).version, 9);
	assert_int_equal(rs_session_version(s), 9);
	rs_session_delete(&s);
	nothing_alive();
}

static void a_challenge_is_answered_with_the_key(void **state)
{
	(void)state;
	challenge_data(&fake.answers[0].data);
	grant_data(&fake.incoming[fake.nincoming++], RS_PROTO_VERSION);
	struct rs_session_request r = request();
	r.key = &key;
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(&r, &s, &err), 0);
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
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(&r, &s, &err), RS_E_AUTH);
	assert_string_equal(err.msg, "h:7204/app requires an auth key");
	nothing_alive();
}

/* Flush where the connection cannot do it: not offered, and insisting on
 * it fails before asking. */
static void flush_only_where_the_connection_can(void **state)
{
	(void)state;
	fake.flush_why_not = "no FLUSH here";
	grant_data(&fake.answers[0].data, RS_PROTO_VERSION);
	struct rs_session_request r = request();
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_connect(&r, &s, &err), 0);
	assert_int_equal(sent_request(0).methods,
			 RS_METHOD_BIT(RS_METHOD_GPSPM));
	rs_session_delete(&s);
	r.req.method = RS_METHOD_FLUSH;
	fake.connects = 0;
	assert_int_equal(rs_session_connect(&r, &s, &err), RS_E_REJECTED);
	assert_string_equal(err.msg,
			    "method flush cannot be used from here: no FLUSH "
			    "here");
	assert_int_equal(fake.connects, 0);
	nothing_alive();
}

/* ---- the receiver's half ---- */

static const struct rs_session_token presented = {{9, 8, 7}};

/* An accept of an incoming connection, on a peer of the test's. */
static struct rs_session_accept accept_of(struct rs_peer *peer,
					  const struct rs_auth_key *k,
					  const struct rs_accept_info *grant)
{
	return (struct rs_session_accept){.version = RS_PROTO_VERSION,
					  .peer = peer,
					  .slots = SLOTS,
					  .busy_poll = true,
					  .key = k,
					  .grant = grant,
					  .presented = &presented};
}

/* The peer the receiver registers on, made as the receiver makes it. */
static struct rs_peer *receiver_peer(void)
{
	struct rs_peer *peer = 0;
	struct rs_conn *c = fake_conn_incoming();
	assert_int_equal(rs_peer_new(c, &peer, 0), 0);
	rs_conn_delete(&c);
	return peer;
}

static void accepts_with_the_grant(void **state)
{
	(void)state;
	struct rs_peer *peer = receiver_peer();
	struct rs_accept_info grant = gpspm_grant(0);
	struct rs_session_accept a = accept_of(peer, 0, &grant);
	struct rs_conn *conn = fake_conn_incoming();
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_accept(&conn, &a, &s, &err), 0);
	assert_null(conn); /* the session's now */
	assert_true(fake.quiet_sends && fake.busy_poll && !fake.read_only);
	struct rs_accept_info sent;
	assert_int_equal(rs_accept_info_decode(fake.accept_data.bytes,
					       fake.accept_data.len, &sent, 0),
			 0);
	assert_int_equal(sent.version, RS_PROTO_VERSION);
	assert_int_equal(sent.write_offset_value, grant.write_offset_value);
	/* Receives of a message each: a larger one fails its receive. */
	assert_int_equal(fake.nrecvs, SLOTS + 1);
	assert_int_equal(fake.recvs[0].len, RS_MSG_SIZE);
	rs_session_delete(&s);
	rs_peer_delete(&peer);
	nothing_alive();
}

/* A message into a slot: decoded, and the slot's receive posted again. */
static void takes_a_message_into_its_slot(void **state)
{
	(void)state;
	struct rs_peer *peer = receiver_peer();
	struct rs_accept_info grant = gpspm_grant(0);
	struct rs_session_accept a = accept_of(peer, 0, &grant);
	struct rs_conn *conn = fake_conn_incoming();
	struct rs_session *s = 0;
	assert_int_equal(rs_session_accept(&conn, &a, &s, 0), 0);
	struct rs_msg commit = {
	    .type = RS_MSG_COMMIT, .seq = 5, .offset = 8192, .length = 64};
	struct rs_private_data *in = &fake.incoming[fake.nincoming++];
	in->len = rs_msg_encode(&commit, in->bytes, sizeof(in->bytes));
	struct rs_completion wc;
	assert_int_equal(rs_conn_next_completion(rs_session_conn(s), &wc, 0),
			 RS_WAIT_COMPLETION);
	struct rs_msg msg;
	uint16_t slot = 99;
	assert_int_equal(rs_session_take(s, &wc, &msg, &slot, 0), 0);
	assert_int_equal(slot, 0);
	assert_int_equal(msg.seq, 5);
	assert_int_equal(fake.nrecvs, SLOTS + 1);
	assert_int_equal(fake.recvs[SLOTS].wr_id, 0);
	rs_session_delete(&s);
	rs_peer_delete(&peer);
	nothing_alive();
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
	(void)state;
	struct rs_peer *peer = receiver_peer();
	struct rs_accept_info grant = gpspm_grant(0);
	struct rs_session_accept a = accept_of(peer, &key, &grant);
	struct rs_conn *conn = fake_conn_incoming();
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_accept(&conn, &a, &s, &err), 0);
	struct rs_msg right = answer_with(&key);
	assert_int_equal(rs_session_check_auth(s, &right, &err), 0);
	struct rs_auth_key other = key;
	other.bytes[0] ^= 1;
	struct rs_msg wrong = answer_with(&other);
	assert_int_equal(rs_session_check_auth(s, &wrong, &err), RS_E_AUTH);
	assert_string_equal(err.msg, "wrong auth key");
	struct rs_msg commit = {.type = RS_MSG_COMMIT};
	assert_int_equal(rs_session_check_auth(s, &commit, &err), RS_E_AUTH);
	assert_string_equal(err.msg, "it did not answer the auth challenge");
	/* The grant as a message, in the request's version. */
	assert_int_equal(rs_session_send_grant(s, &grant), 0);
	struct rs_accept_info sent;
	assert_int_equal(rs_accept_info_decode(fake.sends[0].bytes,
					       fake.sends[0].len, &sent, 0),
			 0);
	assert_int_equal(sent.version, RS_PROTO_VERSION);
	rs_session_delete(&s);
	rs_peer_delete(&peer);
	nothing_alive();
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
	(void)state;
	struct rs_peer *peer = receiver_peer();
	struct rs_session_accept a = accept_of(peer, 0, 0);
	struct rs_conn *conn = fake_conn_incoming();
	struct rs_session *s = 0;
	assert_int_equal(rs_session_prepare(&conn, &a, &s, 0), 0);
	rs_session_refuse_prepared(&s, RS_REJECT_BUSY);
	assert_null(s);
	assert_false(fake.accepted);
	assert_int_equal(sent_reject().reason, RS_REJECT_BUSY);
	rs_peer_delete(&peer);
	nothing_alive();
}

static void no_queue_pair_is_refused(void **state)
{
	(void)state;
	fake.create_qp_rc = RS_E_NOMEM;
	struct rs_peer *peer = receiver_peer();
	struct rs_session_accept a = accept_of(peer, 0, 0);
	struct rs_conn *conn = fake_conn_incoming();
	struct rs_session *s = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_session_prepare(&conn, &a, &s, &err), RS_E_NOMEM);
	assert_null(conn);
	assert_null(s);
	assert_int_equal(sent_reject().reason, RS_REJECT_INTERNAL);
	rs_peer_delete(&peer);
	nothing_alive();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(takes_the_grant_of_the_accept, reset),
	    cmocka_unit_test_setup(a_busy_receiver_is_busy, reset),
	    cmocka_unit_test_setup(a_refusal_names_the_logs_to_use, reset),
	    cmocka_unit_test_setup(an_unreadable_refusal_is_nobody_listening,
				   reset),
	    cmocka_unit_test_setup(
		an_older_receiver_is_asked_again_in_its_version, reset),
	    cmocka_unit_test_setup(a_challenge_is_answered_with_the_key, reset),
	    cmocka_unit_test_setup(a_challenge_without_a_key_fails, reset),
	    cmocka_unit_test_setup(flush_only_where_the_connection_can, reset),
	    cmocka_unit_test_setup(accepts_with_the_grant, reset),
	    cmocka_unit_test_setup(takes_a_message_into_its_slot, reset),
	    cmocka_unit_test_setup(with_a_key_the_grant_follows_the_answer,
				   reset),
	    cmocka_unit_test_setup(refused_between_the_two_steps, reset),
	    cmocka_unit_test_setup(no_queue_pair_is_refused, reset),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
