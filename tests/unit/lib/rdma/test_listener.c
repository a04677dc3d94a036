/* The listener (src/lib/rdma/listener.c) over the fake device's rdma_cm
 * (fake_verbs.h): each failure to set it up named with its address and
 * the fix, nothing left behind; a connect request taken as a connection
 * on an event channel of its own, with the sender's private data; at the
 * open-file limit the spare descriptor given up so that the request can
 * still be refused saying why, and taken back at the next event; a
 * request that cannot be held refused, not leaked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "fake_verbs.h"
#include "rdma/listener.h"

#include <errno.h>
#include <string.h>

static int setup(void **state)
{
	*state = fake_verbs_new();
	return 0;
}

static int teardown(void **state)
{
	fake_verbs_delete(*state); /* no channel or id left */
	return 0;
}

/* What setting up a listener on host says when the fake fails so. */
static const char *refusal(const char *host)
{
	static struct rs_error err;
	struct rs_listener *l = (struct rs_listener *)1;
	memset(&err, 0, sizeof(err));
	assert_int_equal(rs_listener_new(host, "7204", &l, &err),
			 RS_E_PROVIDER);
	assert_null(l);
	return err.msg;
}

static void each_failure_named(void **state)
{
	struct fake_verbs *f = *state;
	f->create_id_errno = ENODEV;
	assert_string_equal(refusal(0),
			    "cannot create an RDMA CM id: no RDMA device on "
			    "this machine; load a driver or set up Soft-RoCE "
			    "(rdma link add rxe0 type rxe netdev ETH)");
	f->create_id_errno = 0;
	f->getaddrinfo_errno = ENOENT;
	assert_string_equal(refusal("pmemhost"),
			    "cannot resolve listen address pmemhost:7204: No "
			    "such file or directory");
	f->getaddrinfo_errno = 0;
	f->bind_errno = EADDRINUSE;
	assert_string_equal(refusal(""),
			    "cannot listen on *:7204: Address already in use "
			    "(no RDMA device on that address, or the port is "
			    "taken)");
	f->bind_errno = 0;
	f->channel_errno[0] = EMFILE;
	f->nchannel_fail = 1;
	assert_non_null(strstr(refusal(0), "as many files open"));
}

static void listening_fails_named(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_listener *l = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_listener_new("192.0.2.1", "7204", &l, &err), 0);
	f->listen_errno = EADDRINUSE;
	assert_int_equal(rs_listener_open(l, &err), RS_E_PROVIDER);
	assert_string_equal(err.msg, "cannot listen on 192.0.2.1:7204: "
				     "Address already in use");
	rs_listener_delete(&l);
	assert_null(l);
	rs_listener_delete(&l); /* twice: nothing */
}

static void a_request_gets_a_channel_of_its_own(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_listener *l = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_listener_new(0, "7204", &l, &err), 0);
	assert_int_equal(rs_listener_open(l, &err), 0);
	struct rs_listener_event ev;
	/* nothing yet: a wait that times out is no event and no error */
	assert_int_equal(rs_listener_next_event(l, 0, &ev, &err), 0);
	assert_int_equal(ev.type, RS_LISTENER_NONE);
	fake_cm_request(f, "hello", 5);
	assert_int_equal(rs_listener_next_event(l, 1000, &ev, &err), 0);
	assert_int_equal(ev.type, RS_LISTENER_REQUEST);
	assert_false(ev.out_of_descriptors);
	assert_int_equal(ev.priv.len, 5);
	assert_memory_equal(ev.priv.bytes, "hello", 5);
	struct rs_conn *c = ev.conn;
	assert_non_null(c);
	assert_ptr_equal(c->id->context, c);
	assert_ptr_not_equal(c->cm_channel, l->cm_channel);
	assert_ptr_equal(c->id->channel, c->cm_channel);
	assert_int_equal(f->migrated, 1);
	assert_int_equal(f->acked, 1);
	assert_int_equal(f->rejected, 0);
	assert_int_equal(f->channels, 2);
	rs_conn_delete(&c);
	assert_int_equal(f->channels, 1);
	rs_listener_delete(&l);
}

/* At the open-file limit the request takes the spare descriptor: it is
 * the caller's to refuse, saying why; the spare is taken back at the
 * next event. */
static void at_the_file_limit_the_spare_goes(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_listener *l = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_listener_new(0, "7204", &l, &err), 0);
	assert_true(l->reserve_fd >= 0);
	fake_cm_request(f, 0, 0);
	f->channel_errno[0] = EMFILE;
	f->nchannel_fail = 1;
	struct rs_listener_event ev;
	assert_int_equal(rs_listener_next_event(l, 1000, &ev, &err), 0);
	assert_int_equal(ev.type, RS_LISTENER_REQUEST);
	assert_true(ev.out_of_descriptors);
	assert_int_equal(ev.priv.len, 0);
	assert_int_equal(l->reserve_fd, -1);
	rs_conn_delete(&ev.conn);
	assert_int_equal(rs_listener_next_event(l, 0, &ev, &err), 0);
	assert_true(l->reserve_fd >= 0);
	rs_listener_delete(&l);
}

/* A request that cannot be held (no channel even with the spare, or its
 * id not moved) is refused and its id destroyed. */
static void what_cannot_be_held_is_refused(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_listener *l = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_listener_new(0, "7204", &l, &err), 0);
	struct rs_listener_event ev;
	fake_cm_request(f, 0, 0);
	f->channel_errno[0] = f->channel_errno[1] = EMFILE;
	f->nchannel_fail = 2;
	assert_int_equal(rs_listener_next_event(l, 1000, &ev, &err), 0);
	assert_int_equal(ev.type, RS_LISTENER_NONE);
	assert_null(ev.conn);
	assert_int_equal(f->rejected, 1);
	fake_cm_request(f, 0, 0);
	f->migrate_errno = EINVAL;
	assert_int_equal(rs_listener_next_event(l, 1000, &ev, &err), 0);
	assert_int_equal(ev.type, RS_LISTENER_NONE);
	assert_int_equal(f->rejected, 2);
	assert_int_equal(f->channels, 1); /* the request's own destroyed */
	rs_listener_delete(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(each_failure_named, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(listening_fails_named, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_request_gets_a_channel_of_its_own,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(at_the_file_limit_the_spare_goes,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(what_cannot_be_held_is_refused,
					    setup, teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
