/* A peer (src/lib/rdma/peer.c) over the fake device (fake_verbs.h): a
 * protection domain of its own on the device a connection runs on, one
 * more on the same device for new_like, a failed allocation named with its
 * cause, a domain still in use kept (and the peer with it), and a device
 * that answers only the plain query (as the fake's context does) offering
 * neither on-demand paging nor RDMA FLUSH. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "fake_verbs.h"
#include "rdma/peer.h"

#include <errno.h>
#include <string.h>

static int setup(void **state)
{
	struct fake_verbs *f = fake_verbs_new();
	f->id.verbs = &f->ctx; /* the device the connection runs on */
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake_verbs *f = *state;
	assert_int_equal(f->pds_alive, 0); /* every domain freed */
	fake_verbs_delete(f);
	return 0;
}

static void
a_peer_has_a_domain_of_its_own_on_the_connections_device(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_peer *p = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_peer_new(&f->conn, &p, &err), 0);
	assert_non_null(p);
	assert_int_equal(f->pds_alive, 1);
	assert_ptr_equal(p->verbs, &f->ctx);
	assert_ptr_equal(p->pd, &f->pds[0]);
	assert_true(rs_peer_serves(p, &f->conn));
	assert_int_equal(rs_peer_delete(&p), 0);
	assert_null(p);
}

/* What is registered on one domain is reached through no queue pair of
 * the other: new_like makes a second domain, on the same device. */
static void a_peer_like_another_has_a_second_domain_on_its_device(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_peer *p = 0, *q = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_peer_new(&f->conn, &p, &err), 0);
	assert_int_equal(rs_peer_new_like(p, &q, &err), 0);
	assert_int_equal(f->pds_alive, 2);
	assert_ptr_not_equal(p->pd, q->pd);
	assert_ptr_equal(q->verbs, p->verbs);
	assert_true(rs_peer_serves(q, &f->conn));
	assert_int_equal(rs_peer_delete(&q), 0);
	assert_int_equal(rs_peer_delete(&p), 0);
}

/* A connection on another device (or none yet) is not served. */
static void a_peer_serves_only_connections_on_its_device(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_peer *p = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_peer_new(&f->conn, &p, &err), 0);
	struct ibv_context other = {0};
	struct rdma_cm_id other_id = {.verbs = &other};
	struct rs_conn elsewhere = {.id = &other_id}, unbound = {0};
	assert_false(rs_peer_serves(p, &elsewhere));
	assert_false(rs_peer_serves(p, &unbound));
	assert_false(rs_peer_serves(0, &f->conn));
	assert_int_equal(rs_peer_delete(&p), 0);
}

static void a_domain_that_cannot_be_made_is_named_with_its_cause(void **state)
{
	struct fake_verbs *f = *state;
	f->alloc_pd_errno = EPERM;
	struct rs_peer *p = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_peer_new(&f->conn, &p, &err), RS_E_PROVIDER);
	assert_null(p);
	assert_int_equal(err.sys_errno, EPERM);
	assert_non_null(strstr(err.msg, "protection domain"));
	assert_non_null(strstr(err.msg, strerror(EPERM)));
}

/* A domain something still lives on is not freed, and neither is the
 * peer: freeing it would strand what is on it. */
static void a_domain_in_use_keeps_the_peer(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_peer *p = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_peer_new(&f->conn, &p, &err), 0);
	f->dealloc_pd_rc = EBUSY;
	assert_int_equal(rs_peer_delete(&p), EBUSY);
	assert_non_null(p);
	assert_int_equal(f->pds_alive, 1);
	f->dealloc_pd_rc = 0;
	assert_int_equal(rs_peer_delete(&p), 0);
	assert_null(p);
	assert_int_equal(rs_peer_delete(&p), 0); /* none: nothing to do */
}

/* The fake's context is not an extended one: the extended query falls
 * back to the plain one, which says nothing of paging or flush. */
static void
a_device_that_says_nothing_offers_no_paging_and_no_flush(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_peer *p = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_peer_new(&f->conn, &p, &err), 0);
	assert_false(p->odp_rc_write_read);
	const char *why = 0;
	assert_false(rs_peer_can_flush(p, &why));
	assert_non_null(why);
	assert_non_null(strstr(why, "RDMA FLUSH"));
	assert_false(rs_peer_can_flush(p, 0)); /* the reason is optional */
	assert_int_equal(rs_peer_delete(&p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		a_peer_has_a_domain_of_its_own_on_the_connections_device, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_peer_like_another_has_a_second_domain_on_its_device, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_peer_serves_only_connections_on_its_device, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_domain_that_cannot_be_made_is_named_with_its_cause, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(a_domain_in_use_keeps_the_peer,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_device_that_says_nothing_offers_no_paging_and_no_flush, setup,
		teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
