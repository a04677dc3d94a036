/* Admitting senders to one log (src/rpma-recv/log/admission.c) over the
 * fake device (tests/unit/lib/rdma/fake_verbs.h), requests taken from the
 * real listener: what is decided before a queue pair is made. A request
 * whose sender gave up on it (a host short of CPU: it waited past the
 * sender's connect timeout) is dropped, its seat free at once, nothing
 * registered or refused (issue 69: seats counted stale requests and the
 * queue pairs of withdrawn ones failed with EINVAL); a writer's request
 * while another holds the log is refused as busy, a token of zeros
 * matching no one; a request routed to take over a session that ended
 * meanwhile takes a seat like any other or is refused at the cap; each
 * refusal says why on the wire and gives its seat back, never another's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../lib/rdma/fake_verbs.h"
#include "../../stderr_capture.h"
#include "../temp_pool.h"
#include "error.h"
#include "log/admission.h"
#include "metrics/clock.h"
#include "rdma/listener.h"
#include "rotation/rotation.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
	char pool[64];
	struct recv_pmem_target t;
	struct recv_rotation_config rcfg;
	struct recv_rotation *rot;
	struct fake_verbs *f;
	struct rs_listener *listener;
	struct recv_worker_config cfg;
	struct recv_counters counters;
	struct recv_log_counters log_counters;
	struct recv_held_token held;
	struct recv_admission adm;
	struct recv_sender other; /* a writer holding the log, when set */
};

static int setup(void **state)
{
	struct fixture *x = test_calloc(1, sizeof(*x));
	x->f = fake_verbs_new();
	struct rs_error err = {0};
	assert_int_equal(rs_listener_new(0, "7204", &x->listener, &err), 0);
	assert_int_equal(rs_listener_open(x->listener, &err), 0);
	atomic_store(&x->counters.max_senders, 4);
	/* a pool on a plain file, no archive: it offers the staged method */
	assert_int_equal(temp_pool_open(x->pool,
					"/tmp/rs-test-admission-XXXXXX", &x->t,
					2u << 20),
			 0);
	assert_int_equal(
	    recv_rotation_open(&x->rcfg, "", &x->t, 0, &x->rot, &err), 0);
	x->cfg.exposure =
	    (struct recv_exposure_config){.slot_size = 4096, .slots = 4};
	x->cfg.peer_timeout_ms = 10000;
	recv_held_token_init(&x->held);
	recv_admission_init(&x->adm, &x->cfg, &x->counters, &x->log_counters,
			    &x->t, x->rot, &x->held);
	x->other.granted = true;
	memset(&x->other.token, 0x5a, sizeof(x->other.token));
	snprintf(x->other.s.peer, sizeof(x->other.s.peer), "192.0.2.9");
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	if (x->adm.holder == &x->other)
		x->adm.holder = 0; /* the test's, not a session of the log */
	recv_admission_fini(&x->adm);
	recv_held_token_fini(&x->held);
	recv_rotation_close(&x->rot);
	temp_pool_close(x->pool, &x->t);
	rs_listener_delete(&x->listener);
	assert_int_equal(x->f->mrs_alive, 0); /* every region given back */
	assert_int_equal(x->f->pds_alive, 0);
	fake_verbs_delete(x->f); /* every channel, id and queue gone */
	test_free(x);
	return 0;
}

/* A request as the service hands it over: taken by the listener, with a
 * seat claimed at routing (a takeover with the holder's token claims
 * none: it passes). */
static struct recv_handover *request(struct fixture *x, uint8_t flags,
				     const struct rs_session_token *token)
{
	fake_cm_request(x->f, 0, 0);
	struct rs_listener_event ev;
	struct rs_error err = {0};
	assert_int_equal(rs_listener_next_event(x->listener, 1000, &ev, &err),
			 0);
	assert_int_equal(ev.type, RS_LISTENER_REQUEST);
	struct recv_handover *h = test_calloc(1, sizeof(*h));
	h->conn = ev.conn;
	h->req = (struct rs_connect_req){.version = RS_PROTO_VERSION,
					 .flags = flags,
					 .methods = RS_METHOD_ALL};
	if (token)
		h->req.token = *token;
	snprintf(h->peer, sizeof(h->peer), "192.0.2.7");
	h->rules.methods = RS_METHOD_ALL; /* the log allows each */
	bool passes = (flags & RS_CONNECT_TAKEOVER) && token &&
		      !memcmp(token, &x->other.token, sizeof(*token));
	enum recv_seat_claim c =
	    recv_seats_claim(&x->counters.senders,
			     atomic_load(&x->counters.max_senders), passes);
	assert_int_not_equal(c, RECV_SEAT_NONE);
	recv_seat_hold(&h->seat, c);
	h->asked_ns = recv_now_ns();
	return h;
}

/* The refusal the sender was sent: its reason (and hint). */
static struct rs_reject_info refusal(const struct fixture *x)
{
	struct rs_reject_info info;
	struct rs_error err = {0};
	assert_int_equal(x->f->rejected, 1);
	assert_int_equal(
	    rs_reject_decode(x->f->reject_priv, x->f->reject_len, &info, &err),
	    0);
	return info;
}

/* Nothing of the request is left: its connection destroyed (the
 * listener's channel alone), its seat back. */
static void request_gone(const struct fixture *x, unsigned seats_left)
{
	assert_int_equal(x->f->nreg, 0); /* nothing registered for it */
	assert_int_equal(x->f->channels, 1);
	assert_int_equal(atomic_load(&x->counters.senders), seats_left);
	assert_int_equal(x->adm.nsessions, 0);
}

static void
a_request_its_sender_left_is_dropped_and_frees_its_seat(void **state)
{
	struct fixture *x = *state;
	struct recv_handover *h = request(x, 0, 0);
	assert_int_equal(atomic_load(&x->counters.senders), 1);
	fake_cm_event(x->f, h->conn->cm_channel, RDMA_CM_EVENT_DISCONNECTED);
	recv_admission_admit(&x->adm, h);
	assert_int_equal(x->f->rejected, 0); /* no one to tell */
	request_gone(x, 0);
	assert_int_equal(
	    atomic_load(&x->log_counters.refused[RECV_REFUSED_BUSY]), 0);
	test_free(h);
}

/* Gone without a word reaching the receiver: rdma_cm no longer lets its
 * queue pair be made (EINVAL), so it is not tried. */
static void a_request_whose_queue_pair_cannot_be_made_is_dropped(void **state)
{
	struct fixture *x = *state;
	struct recv_handover *h = request(x, 0, 0);
	x->f->init_qp_attr_errno = EINVAL;
	recv_admission_admit(&x->adm, h);
	assert_int_equal(x->f->rejected, 0);
	request_gone(x, 0);
	test_free(h);
}

/* Withdrawn after the log's thread took the request, while it was set up
 * (seen under load: the request waited 11.8 s, its sender had given up
 * at 5 s, rdma_create_qp failed with EINVAL): dropped as above, no one
 * refused, its seat free, no error said; as its queue pair was made, or
 * once made, before the accept. */
static void withdrawn_while_set_up(void **state, bool after_create_qp)
{
	struct fixture *x = *state;
	struct recv_handover *h = request(x, 0, 0);
	x->f->withdraw_at_create_qp = !after_create_qp;
	x->f->withdraw_after_create_qp = after_create_qp;
	stderr_capture_start();
	recv_admission_admit(&x->adm, h);
	const char *said = stderr_capture_end();
	test_free(h);
	assert_int_equal(x->f->rejected, 0);
	assert_int_equal(x->f->accepted, 0);
	assert_int_equal(x->f->qps, 0);
	assert_null(x->adm.holder);
	assert_int_equal(x->adm.nsessions, 0);
	assert_int_equal(atomic_load(&x->counters.senders), 0);
	assert_null(strstr(said, "queue pair"));
}

static void a_request_withdrawn_while_it_is_set_up_is_dropped(void **state)
{
	withdrawn_while_set_up(state, false);
}

static void a_request_withdrawn_before_its_accept_is_dropped(void **state)
{
	withdrawn_while_set_up(state, true);
}

/* The device refuses the queue pair (EINVAL too, the request still
 * held): a failure, said with how long the request waited, and refused. */
static void a_queue_pair_the_device_refuses_is_said_and_refused(void **state)
{
	struct fixture *x = *state;
	struct recv_handover *h = request(x, 0, 0);
	x->f->create_qp_errno = EINVAL;
	stderr_capture_start();
	recv_admission_admit(&x->adm, h);
	const char *said = stderr_capture_end();
	test_free(h);
	assert_int_equal(refusal(x).reason, RS_REJECT_INTERNAL);
	assert_int_equal(x->f->accepted, 0);
	assert_int_equal(x->adm.nsessions, 0);
	assert_int_equal(atomic_load(&x->counters.senders), 0);
	assert_non_null(
	    strstr(said, "cannot create a queue pair: Invalid argument"));
	assert_non_null(strstr(said, "its request waited"));
}

static void a_writer_while_another_holds_the_log_is_refused_busy(void **state)
{
	struct fixture *x = *state;
	x->adm.holder = &x->other;
	struct recv_handover *h = request(x, 0, 0);
	recv_admission_admit(&x->adm, h);
	assert_int_equal(refusal(x).reason, RS_REJECT_BUSY);
	request_gone(x, 0);
	assert_int_equal(
	    atomic_load(&x->log_counters.refused[RECV_REFUSED_BUSY]), 1);
	test_free(h);
}

/* A writer still in its auth challenge has no token yet: a takeover
 * presenting zeros does not take its log. */
static void a_token_of_zeros_matches_no_writer(void **state)
{
	struct fixture *x = *state;
	x->other.granted = false;
	memset(&x->other.token, 0, sizeof(x->other.token));
	x->adm.holder = &x->other;
	struct rs_session_token zeros = {0};
	struct recv_handover *h = request(x, RS_CONNECT_TAKEOVER, &zeros);
	recv_admission_admit(&x->adm, h);
	assert_int_equal(refusal(x).reason, RS_REJECT_BUSY);
	request_gone(x, 0);
	test_free(h);
}

/* Routed with the holder's token (no seat of its own), and the session
 * it came for ended meanwhile while others took every seat: refused at
 * the cap, and the others' seats stay theirs. */
static void a_takeover_of_an_ended_session_needs_a_free_seat(void **state)
{
	struct fixture *x = *state;
	atomic_store(&x->counters.max_senders, 1);
	atomic_store(&x->counters.senders, 1); /* the old session's */
	struct recv_handover *h =
	    request(x, RS_CONNECT_TAKEOVER, &x->other.token);
	assert_false(h->seat.held);
	x->adm.holder = 0; /* it ended; another sender took the seat */
	recv_admission_admit(&x->adm, h);
	assert_int_equal(refusal(x).reason, RS_REJECT_LIMIT);
	request_gone(x, 1);
	assert_int_equal(
	    atomic_load(&x->log_counters.refused[RECV_REFUSED_LIMIT]), 1);
	test_free(h);
}

/* A log with as many connections as it keeps refuses a reader too. */
static void a_log_at_its_connections_refuses_a_reader(void **state)
{
	struct fixture *x = *state;
	x->adm.nsessions = RECV_LOG_SESSIONS_MAX;
	struct recv_handover *h = request(x, RS_CONNECT_VERIFY, 0);
	recv_admission_admit(&x->adm, h);
	x->adm.nsessions = 0;
	assert_int_equal(refusal(x).reason, RS_REJECT_BUSY);
	request_gone(x, 0);
	test_free(h);
}

/* The log's thread refuses with a hint (busy: ask again in that long):
 * the hint reaches the sender, in the version it asked in. */
static void a_refusal_with_a_hint_carries_it(void **state)
{
	struct fixture *x = *state;
	struct recv_handover *h = request(x, 0, 0);
	recv_admission_refuse(&x->adm, h, RS_REJECT_BUSY, 250);
	struct rs_reject_info info = refusal(x);
	assert_int_equal(info.reason, RS_REJECT_BUSY);
	assert_int_equal(info.retry_ms, 250);
	assert_int_equal(info.version, RS_PROTO_VERSION);
	request_gone(x, 0);
	test_free(h);
}

/* The grant the last accept carried (a writer with no key gets it with
 * the accept). */
static struct rs_accept_info granted(const struct fixture *x)
{
	struct rs_accept_info info;
	struct rs_error err = {0};
	assert_int_equal(rs_accept_info_decode(x->f->accept_priv,
					       x->f->accept_len, &info, &err),
			 0);
	return info;
}

/* Accepted: its queue pair made and its receives posted, the grant with
 * the accept (no key), the log its writer's with a token the service's
 * thread can check a takeover against, its seat held by its session;
 * ended: all of it given back. */
static void a_writer_is_accepted_and_holds_the_log(void **state)
{
	struct fixture *x = *state;
	struct recv_handover *h = request(x, 0, 0);
	recv_admission_admit(&x->adm, h);
	test_free(h);
	assert_int_equal(x->f->rejected, 0);
	assert_int_equal(x->f->accepted, 1);
	assert_int_equal(x->f->qps, 1);
	assert_true(x->f->recvs_posted > 0);
	struct recv_sender *a = x->adm.sessions;
	assert_non_null(a);
	assert_ptr_equal(x->adm.holder, a);
	assert_true(a->seat.held);
	assert_int_equal(atomic_load(&x->counters.senders), 1);
	struct rs_accept_info info = granted(x);
	assert_memory_equal(&info.token, &a->token, sizeof(info.token));
	assert_true(recv_held_token_matches(&x->held, &info.token));
	/* shown the one method its session commits by */
	assert_non_null(a->s.cfg.method);
	assert_int_equal(info.methods, RS_METHOD_BIT(a->s.cfg.method->id));
	recv_admission_end(&x->adm, a);
	assert_null(x->adm.holder);
	assert_int_equal(x->adm.nsessions, 0);
	assert_int_equal(atomic_load(&x->counters.senders), 0);
	assert_int_equal(x->f->qps, 0);
}

/* Back on a new connection with its token, at the cap: the old session
 * ends and hands its seat on; the count never passes max-senders. */
static void a_takeover_hands_the_seat_on_at_the_cap(void **state)
{
	struct fixture *x = *state;
	atomic_store(&x->counters.max_senders, 1);
	struct recv_handover *h = request(x, 0, 0);
	recv_admission_admit(&x->adm, h);
	test_free(h);
	struct recv_sender *old = x->adm.holder;
	assert_non_null(old);
	x->other.token = granted(x).token; /* what the sender holds */
	h = request(x, RS_CONNECT_TAKEOVER, &x->other.token);
	assert_false(h->seat.held); /* it passes: no seat of its own */
	recv_admission_admit(&x->adm, h);
	test_free(h);
	assert_int_equal(x->f->accepted, 2);
	assert_int_equal(x->adm.nsessions, 1);
	assert_ptr_not_equal(x->adm.holder, old);
	assert_true(x->adm.holder->seat.held);
	assert_int_equal(atomic_load(&x->counters.senders), 1);
	/* a new token for the new session: the old one takes nothing over */
	struct rs_session_token now = granted(x).token;
	assert_memory_not_equal(&now, &x->other.token, sizeof(now));
	assert_false(recv_held_token_matches(&x->held, &x->other.token));
}

/* A second writer while the first holds the log, at a free seat: busy,
 * the holder untouched. */
static void a_second_writer_is_refused_and_the_first_keeps_the_log(void **state)
{
	struct fixture *x = *state;
	struct recv_handover *h = request(x, 0, 0);
	recv_admission_admit(&x->adm, h);
	test_free(h);
	struct recv_sender *first = x->adm.holder;
	h = request(x, 0, 0);
	assert_int_equal(atomic_load(&x->counters.senders), 2);
	recv_admission_admit(&x->adm, h);
	test_free(h);
	assert_int_equal(refusal(x).reason, RS_REJECT_BUSY);
	assert_ptr_equal(x->adm.holder, first);
	assert_int_equal(x->adm.nsessions, 1);
	assert_int_equal(atomic_load(&x->counters.senders), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		a_request_its_sender_left_is_dropped_and_frees_its_seat, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_request_whose_queue_pair_cannot_be_made_is_dropped, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_request_withdrawn_while_it_is_set_up_is_dropped, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_request_withdrawn_before_its_accept_is_dropped, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_queue_pair_the_device_refuses_is_said_and_refused, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_writer_while_another_holds_the_log_is_refused_busy, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(a_token_of_zeros_matches_no_writer,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_takeover_of_an_ended_session_needs_a_free_seat, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_log_at_its_connections_refuses_a_reader, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_refusal_with_a_hint_carries_it,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_writer_is_accepted_and_holds_the_log, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_takeover_hands_the_seat_on_at_the_cap, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_second_writer_is_refused_and_the_first_keeps_the_log, setup,
		teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
