/* What a log shows its senders (src/rpma-recv/reach/memory.c, with
 * exposure.c, own_memory.c, writer_keys.c and write_windows.c under it)
 * over the fake device (tests/unit/lib/rdma/fake_verbs.h), on a pool file:
 * a device's exposure made once and kept across senders, the methods a
 * plain file offers, a gpspm writer reaching the tail through windows
 * bound on its queue pair and no key to the pool, a staged writer's ring
 * taken for it and given back, a reader on a domain of its own that can
 * write nothing and whose key to the committed prefix ends when the pool
 * goes back; an apm writer's key a window of its own over the range
 * registered once; and everything registered given back at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../lib/rdma/fake_verbs.h"
#include "../temp_pool.h"
#include "cli/log.h"
#include "methods/commit.h"
#include "methods/recv_method.h"
#include "proto/method.h"
#include "reach/memory.h"

#include <string.h>

struct fixture {
	char pool[64];
	struct recv_pmem_target t;
	struct recv_exposure_config cfg;
	struct recv_log_memory lm;
	struct fake_verbs *f;
	struct rs_connect_req req;
	struct recv_sender_memory m;
	bool held; /* m is a sender's, to release */
};

static int setup(void **state)
{
	rs_log_init("test", RS_LOG_QUIET);
	struct fixture *x = test_calloc(1, sizeof(*x));
	x->f = fake_verbs_new();
	assert_int_equal(temp_pool_open(x->pool, "/tmp/rs-test-memory-XXXXXX",
					&x->t, 2u << 20),
			 0);
	x->cfg = (struct recv_exposure_config){.slot_size = 4096, .slots = 4};
	recv_log_memory_init(&x->lm, &x->cfg, &x->t);
	x->req = (struct rs_connect_req){.version = RS_PROTO_VERSION,
					 .methods = RS_METHOD_ALL};
	*state = x;
	return 0;
}

static void end_sender(struct fixture *x)
{
	if (!x->held)
		return;
	recv_sender_memory_drop_windows(&x->m);
	recv_sender_memory_drop_keys(&x->m, false);
	recv_sender_memory_release(&x->m);
	x->held = false;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	end_sender(x);
	recv_log_memory_fini(&x->lm);
	temp_pool_close(x->pool, &x->t);
	assert_int_equal(x->f->mrs_alive, 0); /* every region given back */
	assert_int_equal(x->f->pds_alive, 0);
	assert_int_equal(x->f->mws, 0);
	fake_verbs_delete(x->f);
	test_free(x);
	return 0;
}

/* A sender of x->req on the fake's connection, prepared. */
static struct recv_device_exposure *sender(struct fixture *x)
{
	struct recv_device_exposure *d =
	    recv_log_memory_expose_on(&x->lm, &x->f->conn);
	assert_non_null(d);
	recv_sender_memory_init(&x->m, &x->lm, d, &x->req, RS_METHOD_ALL,
				"192.0.2.7");
	x->held = true;
	assert_int_equal(recv_sender_memory_prepare(&x->m, &x->f->conn), 0);
	return d;
}

/* len bytes committed to the log, as a gpspm writer's commit makes them. */
static void commit(struct fixture *x, uint64_t len)
{
	uint64_t at = recv_pmem_target_write_offset(&x->t);
	memset(x->t.base + at, 'c', len);
	struct rs_msg req = {.type = RS_MSG_COMMIT,
			     .offset = at,
			     .length = len},
		      reply;
	assert_true(
	    recv_commit_apply(&x->t, 0, &recv_method_gpspm, &req, &reply));
}

static struct rs_accept_info grant(struct fixture *x)
{
	struct rs_accept_info info;
	assert_int_equal(recv_sender_memory_describe(&x->m, &x->f->conn, &info),
			 0);
	return info;
}

/* Registered once on a device, kept for its next sender: the second finds
 * it and registers nothing of the pool again. */
static void a_device_is_given_the_log_once(void **state)
{
	struct fixture *x = *state;
	struct recv_device_exposure *d = sender(x);
	assert_int_equal(recv_log_memory_holders(d), 1);
	end_sender(x);
	assert_int_equal(recv_log_memory_holders(d), 0);
	unsigned regs = x->f->nreg;
	assert_ptr_equal(sender(x), d);
	assert_int_equal(recv_log_memory_holders(d), 1);
	/* the second sender's own memory only, none of the pool's again */
	assert_true(x->f->nreg - regs <= 2);
}

/* A pool file is no PMem the device can persist into: no apm, no flush;
 * gpspm (the receiver persists) and staged. */
static void a_pool_file_offers_gpspm_and_staged(void **state)
{
	struct fixture *x = *state;
	struct recv_device_exposure *d = sender(x);
	uint8_t m = recv_log_memory_offered(d, &x->req, RS_METHOD_ALL);
	assert_true(m & RS_METHOD_BIT(RS_METHOD_GPSPM));
	assert_true(m & RS_METHOD_BIT(RS_METHOD_STAGED));
	assert_false(m & RS_METHOD_BIT(RS_METHOD_APM));
	assert_false(m & RS_METHOD_BIT(RS_METHOD_FLUSH));
	/* and only what the log's rules allow */
	assert_int_equal(recv_log_memory_offered(
			     d, &x->req, RS_METHOD_BIT(RS_METHOD_STAGED)),
			 RS_METHOD_BIT(RS_METHOD_STAGED));
}

/* A gpspm writer on a device that binds windows: no key to the pool in
 * its grant, its windows bound on its queue pair from the head. */
static void a_gpspm_writer_reaches_the_tail_through_windows(void **state)
{
	struct fixture *x = *state;
	x->req.method = RS_METHOD_GPSPM;
	sender(x);
	assert_true(recv_sender_memory_through_windows(&x->m));
	struct rs_accept_info info = grant(x);
	assert_int_equal(info.methods, RS_METHOD_BIT(RS_METHOD_GPSPM));
	assert_true(info.peer_flags & RS_PEER_WINDOWS);
	assert_int_equal(info.data.rkey, 0); /* no key to the pool */
	struct recv_window_binding b;
	uint64_t head = recv_pmem_target_write_offset(&x->t);
	assert_int_equal(
	    recv_sender_memory_window(&x->m, &x->f->conn, head, 4096, true, &b),
	    0);
	assert_int_equal(x->f->mws, 2); /* its two, on its queue pair */
	assert_int_equal(x->f->mw_type, IBV_MW_TYPE_2);
	assert_int_not_equal(b.key, 0);
	assert_true(b.end >= head + 4096);
}

/* A device that binds no windows: a gpspm writer gets a key of its own to
 * the data range, on a protection domain no other queue pair lives on,
 * and gives both back at its end. */
static void without_windows_a_gpspm_writer_has_a_key_of_its_own(void **state)
{
	struct fixture *x = *state;
	x->f->attr.device_cap_flags = 0; /* no memory windows */
	x->req.method = RS_METHOD_GPSPM;
	sender(x);
	assert_false(recv_sender_memory_through_windows(&x->m));
	struct rs_accept_info info = grant(x);
	assert_int_equal(info.methods, RS_METHOD_BIT(RS_METHOD_GPSPM));
	assert_false(info.peer_flags & RS_PEER_WINDOWS);
	assert_int_not_equal(info.data.rkey, 0);
	assert_int_equal(info.data.length, x->t.end - x->t.start);
	assert_ptr_not_equal(x->m.peer, recv_exposure_peer(x->m.exposure));
	assert_int_equal(x->f->mws, 0);
}

/* Where the device binds windows, an apm writer's key to the data range
 * is a window of its own over the range registered once for windows (on
 * the log's apm and flush writers' domain, not the gpspm writers'),
 * bound on its queue pair before its grant is made, freed at its end: a
 * session registers only the offset word. */
static void an_apm_writers_key_is_a_window_of_its_own(void **state)
{
	struct fixture *x = *state;
	x->t.granularity = PMEM2_GRANULARITY_BYTE; /* as on device-DAX */
	x->cfg.direct_write_to_pmem = true;	   /* read when exposed */
	x->f->binds_complete = true;
	x->f->conn.send_cq = &x->f->send_cq;
	x->req.method = RS_METHOD_APM;
	for (int session = 0; session < 2; session++) {
		struct recv_device_exposure *d = sender(x);
		assert_true(recv_log_memory_offered(d, &x->req, RS_METHOD_ALL) &
			    RS_METHOD_BIT(RS_METHOD_APM));
		assert_ptr_not_equal(x->m.peer,
				     recv_exposure_peer(x->m.exposure));
		unsigned regs = x->f->nreg, sent = x->f->nsent;
		struct rs_accept_info info = grant(x);
		assert_int_equal(info.methods, RS_METHOD_BIT(RS_METHOD_APM));
		assert_int_equal(x->f->nreg, regs + 1); /* the word only */
		assert_int_equal(x->f->mws, 1);
		assert_int_equal(x->f->mw_type, IBV_MW_TYPE_2);
		/* bound with write access over all of the range ... */
		assert_int_equal(x->f->nsent, sent + 1);
		struct ibv_send_wr *bind = &x->f->sent[sent];
		assert_int_equal(bind->opcode, IBV_WR_BIND_MW);
		assert_int_equal(bind->bind_mw.bind_info.length,
				 x->t.end - x->t.start);
		assert_int_equal(bind->bind_mw.bind_info.mw_access_flags,
				 IBV_ACCESS_REMOTE_WRITE);
		/* ... and that window is the key the grant names */
		assert_int_equal(info.data.rkey, bind->bind_mw.rkey);
		assert_int_equal(info.data.length, x->t.end - x->t.start);
		assert_false(info.peer_flags & RS_PEER_WINDOWS);
		end_sender(x);
		assert_int_equal(x->f->mws, 0); /* its key reaches nothing */
	}
}

/* The staged ring is registered while a staged writer holds it, and
 * given back after. */
static void a_staged_writers_ring_is_taken_and_given_back(void **state)
{
	struct fixture *x = *state;
	x->req.method = RS_METHOD_STAGED;
	struct recv_device_exposure *d =
	    recv_log_memory_expose_on(&x->lm, &x->f->conn);
	assert_non_null(d);
	unsigned alive = x->f->mrs_alive;
	recv_sender_memory_init(&x->m, &x->lm, d, &x->req, RS_METHOD_ALL,
				"192.0.2.7");
	x->held = true;
	assert_int_equal(recv_sender_memory_prepare(&x->m, &x->f->conn), 0);
	assert_true(x->f->mrs_alive > alive);
	struct rs_accept_info info = grant(x);
	assert_int_equal(info.methods, RS_METHOD_BIT(RS_METHOD_STAGED));
	assert_int_equal(info.staging.length, 4096u * 4);
	assert_int_equal(info.staging_slot_size, 4096);
	end_sender(x);
	assert_int_equal(x->f->mrs_alive, alive);
}

/* A reader is shown nothing it could write, on a protection domain of its
 * own; its key to the committed prefix ends once the pool goes back. */
static void a_reader_can_write_nothing(void **state)
{
	struct fixture *x = *state;
	commit(x, 4096);
	x->req.flags = RS_CONNECT_VERIFY;
	x->req.methods = 0;
	unsigned pds = x->f->pds_alive;
	sender(x);
	assert_null(recv_sender_memory_method(&x->m));
	assert_true(x->f->pds_alive > pds + 0u);
	struct rs_accept_info info = grant(x);
	assert_true(info.peer_flags & RS_PEER_READ_ONLY);
	assert_int_equal(info.methods, 0);
	assert_int_equal(info.data.length, 0);
	assert_int_equal(info.write_offset.length, 0);
	assert_int_equal(info.staging.length, 0);
	/* the committed prefix, readable in place, and no further */
	assert_int_equal(info.data_read.length, 4096);
	assert_int_equal(x->f->reg_flags[x->f->nreg - 1],
			 IBV_ACCESS_REMOTE_READ);
	assert_false(recv_sender_memory_prefix_ends(&x->m));
	x->t.rewinds++; /* the pool went back (a truncation, a switch) */
	assert_true(recv_sender_memory_prefix_ends(&x->m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(a_device_is_given_the_log_once,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_pool_file_offers_gpspm_and_staged,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_gpspm_writer_reaches_the_tail_through_windows, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		without_windows_a_gpspm_writer_has_a_key_of_its_own, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		an_apm_writers_key_is_a_window_of_its_own, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_staged_writers_ring_is_taken_and_given_back, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_reader_can_write_nothing, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
