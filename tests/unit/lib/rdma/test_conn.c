/* A connection's posting and polling (src/lib/rdma/conn.c) over a fake
 * verbs device: the queue pair's and completion queues' calls go through
 * the device context's ops, as libibverbs' inline ibv_post_send and
 * ibv_poll_cq call them, so the fake (fake_verbs.h) sees each work request
 * as posted and hands back the completions a test queues. No device, no
 * rdma_cm. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "fake_verbs.h"
#include "rdma/internal.h"

#include <errno.h>
#include <string.h>

static int setup(void **state)
{
	*state = fake_verbs_new();
	return 0;
}

static int teardown(void **state)
{
	fake_verbs_delete(*state);
	return 0;
}

/* A probe is an RDMA write of no bytes: no scatter entry, no address, no
 * key (nothing the peer's program sees), its own wr_id. */
static void a_probe_is_a_write_of_nothing(void **state)
{
	struct fake_verbs *f = *state;
	assert_int_equal(rs_conn_probe(&f->conn, RS_POST_SIGNALED), 0);
	assert_int_equal(f->doorbells, 1);
	assert_int_equal(f->nsent, 1);
	const struct ibv_send_wr *w = &f->sent[0];
	assert_int_equal(w->opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(w->num_sge, 0);
	assert_int_equal(w->wr.rdma.remote_addr, 0);
	assert_int_equal(w->wr.rdma.rkey, 0);
	assert_true(w->wr_id == RS_CONN_PROBE_WR_ID);
	assert_int_equal(w->send_flags, IBV_SEND_SIGNALED);
}

/* Requests posted with RS_POST_MORE wait for the last of their chain:
 * one doorbell for all, in order, each with its own flags and the bytes
 * of the region it names. */
static void a_chain_rings_once(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_mr_desc dst = {.addr = 0x900000, .rkey = 5};
	assert_int_equal(rs_conn_write(&f->conn, &dst, 64, &f->rs_mr, 128, 4096,
				       1, RS_POST_MORE),
			 0);
	assert_int_equal(f->doorbells, 0);
	assert_int_equal(
	    rs_conn_send(&f->conn, &f->rs_mr, 8, 32, 2, RS_POST_SIGNALED), 0);
	assert_int_equal(f->doorbells, 1);
	assert_int_equal(f->nsent, 2);
	assert_int_equal(f->sent[0].opcode, IBV_WR_RDMA_WRITE);
	assert_int_equal(f->sent[0].send_flags, 0);
	assert_int_equal(f->sent[0].wr.rdma.remote_addr, 0x900000 + 64);
	assert_int_equal(f->sent[0].wr.rdma.rkey, 5);
	assert_int_equal(f->sent_sge[0].addr, 0x10000 + 128);
	assert_int_equal(f->sent_sge[0].length, 4096);
	assert_int_equal(f->sent_sge[0].lkey, 77);
	assert_int_equal(f->sent[1].opcode, IBV_WR_SEND);
	assert_int_equal(f->sent[1].send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(f->sent_sge[1].addr, 0x10000 + 8);
	assert_int_equal(f->sent[1].wr_id, 2);
}

/* A chain never outgrows its room: the request that fills it rings. */
static void a_full_chain_rings(void **state)
{
	struct fake_verbs *f = *state;
	for (unsigned i = 0; i < RS_CONN_CHAIN_MAX; i++)
		assert_int_equal(rs_conn_probe(&f->conn, RS_POST_MORE), 0);
	assert_int_equal(f->doorbells, 1);
	assert_int_equal(f->nsent, RS_CONN_CHAIN_MAX);
	assert_int_equal(rs_conn_probe(&f->conn, 0), 0);
	assert_int_equal(f->doorbells, 2);
}

/* A raw request held back (a window's binding) goes first in the next
 * post, on the same doorbell; one posted raw follows the chain held. */
static void raw_requests_keep_their_place(void **state)
{
	struct fake_verbs *f = *state;
	struct ibv_send_wr bind = {.wr_id = 9, .opcode = IBV_WR_BIND_MW};
	assert_int_equal(rs_conn_hold_raw(&f->conn, &bind), 0);
	assert_int_equal(f->doorbells, 0);
	assert_int_equal(
	    rs_conn_send(&f->conn, &f->rs_mr, 0, 16, 3, RS_POST_SIGNALED), 0);
	assert_int_equal(f->doorbells, 1);
	assert_int_equal(f->nsent, 2);
	assert_int_equal(f->sent[0].wr_id, 9);
	assert_int_equal(f->sent[1].wr_id, 3);

	assert_int_equal(rs_conn_probe(&f->conn, RS_POST_MORE), 0);
	struct ibv_send_wr raw = {.wr_id = 10, .opcode = IBV_WR_BIND_MW};
	struct ibv_send_wr *bad = NULL;
	assert_int_equal(rs_conn_post_raw(&f->conn, &raw, &bad), 0);
	assert_int_equal(f->doorbells, 2);
	assert_true(f->sent[2].wr_id == RS_CONN_PROBE_WR_ID);
	assert_int_equal(f->sent[3].wr_id, 10);
}

/* A post the device refuses is a lost connection. */
static void a_refused_post_is_lost(void **state)
{
	struct fake_verbs *f = *state;
	f->post_fails = ENOMEM;
	assert_int_equal(rs_conn_probe(&f->conn, RS_POST_SIGNALED), RS_E_LOST);
	assert_int_equal(
	    rs_conn_send(&f->conn, &f->rs_mr, 0, 16, 3, RS_POST_SIGNALED),
	    RS_E_LOST);
}

/* With quiet sends, the send queue's own CQ (which raises no event) is
 * looked at first; rs_conn_poll_sends looks at it alone. */
static void quiet_sends_are_polled_first(void **state)
{
	struct fake_verbs *f = *state;
	f->conn.send_cq = &f->send_cq;
	f->cq_wc[f->ncq++] = (struct ibv_wc){.wr_id = 1,
					     .status = IBV_WC_SUCCESS,
					     .opcode = IBV_WC_RECV,
					     .byte_len = 40};
	f->send_wc[f->nsend++] = (struct ibv_wc){
	    .wr_id = 2, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND};
	struct rs_completion wc;
	assert_int_equal(rs_conn_poll_completion(&f->conn, &wc),
			 RS_WAIT_COMPLETION);
	assert_int_equal(wc.wr_id, 2);
	assert_int_equal(wc.op, RS_OP_SEND);
	assert_int_equal(rs_conn_poll_completion(&f->conn, &wc),
			 RS_WAIT_COMPLETION);
	assert_int_equal(wc.wr_id, 1);
	assert_int_equal(wc.op, RS_OP_RECV);
	assert_int_equal(wc.byte_len, 40);
	assert_true(wc.ok);
	assert_int_equal(rs_conn_poll_completion(&f->conn, &wc),
			 RS_WAIT_TIMEOUT);
	f->cq_wc[f->ncq++] = (struct ibv_wc){
	    .wr_id = 3, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV};
	f->send_wc[f->nsend++] = (struct ibv_wc){
	    .wr_id = 4, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RDMA_WRITE};
	assert_int_equal(rs_conn_poll_sends(&f->conn, &wc), RS_WAIT_COMPLETION);
	assert_int_equal(wc.wr_id, 4);
	assert_int_equal(wc.op, RS_OP_WRITE);
	assert_int_equal(rs_conn_poll_sends(&f->conn, &wc), RS_WAIT_TIMEOUT);
}

/* Without quiet sends there is no send CQ to look at. */
static void without_quiet_sends_one_cq_takes_all(void **state)
{
	struct fake_verbs *f = *state;
	f->cq_wc[f->ncq++] = (struct ibv_wc){
	    .wr_id = 4, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RDMA_READ};
	struct rs_completion wc;
	assert_int_equal(rs_conn_poll_sends(&f->conn, &wc), RS_WAIT_TIMEOUT);
	assert_int_equal(rs_conn_poll_completion(&f->conn, &wc),
			 RS_WAIT_COMPLETION);
	assert_int_equal(wc.op, RS_OP_READ);
}

/* A failed request says so and why; one flushed by a queue pair already
 * in error says that it was flushed (the receiver logs only the first);
 * a CQ that cannot be polled is an error, not silence. */
static void failures_are_told_apart(void **state)
{
	struct fake_verbs *f = *state;
	f->cq_wc[f->ncq++] = (struct ibv_wc){.wr_id = RS_CONN_PROBE_WR_ID,
					     .status = IBV_WC_RETRY_EXC_ERR,
					     .opcode = IBV_WC_RDMA_WRITE};
	f->cq_wc[f->ncq++] = (struct ibv_wc){
	    .wr_id = 6, .status = IBV_WC_WR_FLUSH_ERR, .opcode = IBV_WC_SEND};
	struct rs_completion wc;
	assert_int_equal(rs_conn_poll_completion(&f->conn, &wc),
			 RS_WAIT_COMPLETION);
	assert_false(wc.ok);
	assert_false(wc.flushed);
	assert_true(wc.wr_id == RS_CONN_PROBE_WR_ID);
	assert_string_equal(wc.status, ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR));
	assert_int_equal(rs_conn_poll_completion(&f->conn, &wc),
			 RS_WAIT_COMPLETION);
	assert_false(wc.ok);
	assert_true(wc.flushed);
	f->poll_fails = -1;
	assert_int_equal(rs_conn_poll_completion(&f->conn, &wc), RS_WAIT_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(a_probe_is_a_write_of_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_chain_rings_once, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_full_chain_rings, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(raw_requests_keep_their_place,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(a_refused_post_is_lost, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(quiet_sends_are_polled_first, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		without_quiet_sends_one_cq_takes_all, setup, teardown),
	    cmocka_unit_test_setup_teardown(failures_are_told_apart, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
