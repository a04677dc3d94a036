/* Memory windows (src/lib/rdma/mw.c) over the fake device (fake_verbs.h):
 * a window is type 2; a binding posts a bind with the next key, over the
 * region's bytes it names, for the access asked; a window bound before is
 * invalidated first in the same chain (its old key stops there), and the
 * description gives the new key only; a revoke invalidates the key the
 * last binding gave; what the device says it binds, and whether it keeps a
 * window to its range (Soft-RoCE does not). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "fake_verbs.h"
#include "rdma/mr.h"
#include "rdma/mw.h"

#include <errno.h>
#include <string.h>

static int setup(void **state)
{
	*state = fake_verbs_new();
	return 0;
}

static int teardown(void **state)
{
	struct fake_verbs *f = *state;
	assert_int_equal(f->mws, 0); /* every window deleted */
	fake_verbs_delete(f);
	return 0;
}

static void a_window_is_type_2(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_mw *mw = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_mw_new(&f->peer, &mw, &err), 0);
	assert_int_equal(f->mw_type, IBV_MW_TYPE_2);
	assert_int_equal(f->mws, 1);
	rs_mw_delete(&mw);
	assert_null(mw);
	rs_mw_delete(&mw); /* twice: nothing */
}

static void a_window_not_made_says_why(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_mw *mw = 0;
	struct rs_error err = {0};
	f->alloc_errno = ENOMEM;
	assert_int_equal(rs_mw_new(&f->peer, &mw, &err), RS_E_PROVIDER);
	assert_null(mw);
	assert_string_equal(err.msg, "cannot allocate a memory window: "
				     "Cannot allocate memory");
	f->alloc_errno = 0;
	f->ctx.ops.alloc_mw = 0; /* a device without windows */
	assert_int_equal(rs_mw_new(&f->peer, &mw, &err), RS_E_PROVIDER);
	assert_non_null(strstr(err.msg, "not supported"));
}

static void binding_moves_the_key(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_mw *mw = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_mw_new(&f->peer, &mw, &err), 0);
	/* the first binding: a bind alone, the next key */
	assert_int_equal(rs_mw_bind(&f->conn, mw, &f->rs_mr, 4096, 8192,
				    RS_MR_REMOTE_WRITE, 9, RS_POST_SIGNALED),
			 0);
	assert_int_equal(f->doorbells, 1);
	assert_int_equal(f->nsent, 1);
	const struct ibv_send_wr *b = &f->sent[0];
	assert_int_equal(b->opcode, IBV_WR_BIND_MW);
	assert_int_equal(b->wr_id, 9);
	assert_int_equal(b->send_flags, IBV_SEND_SIGNALED);
	assert_ptr_equal(b->bind_mw.mw, &f->mw);
	assert_int_equal(b->bind_mw.rkey, ibv_inc_rkey(0x1200));
	assert_ptr_equal(b->bind_mw.bind_info.mr, &f->mr);
	assert_int_equal(b->bind_mw.bind_info.addr, 0x10000 + 4096);
	assert_int_equal(b->bind_mw.bind_info.length, 8192);
	assert_int_equal(b->bind_mw.bind_info.mw_access_flags,
			 IBV_ACCESS_REMOTE_WRITE);
	struct rs_mr_desc d = rs_mw_describe(mw, 3);
	assert_int_equal(d.rkey, ibv_inc_rkey(0x1200));
	assert_int_equal(d.addr, 0x10000 + 4096);
	assert_int_equal(d.length, 8192);
	assert_int_equal(d.usage, 3);
	/* the second: the old key invalidated first, in one chain */
	uint32_t old = d.rkey;
	assert_int_equal(rs_mw_bind(&f->conn, mw, &f->rs_mr, 0, 512,
				    RS_MR_REMOTE_READ, 10, 0),
			 0);
	assert_int_equal(f->doorbells, 2);
	assert_int_equal(f->nsent, 3);
	assert_int_equal(f->sent[1].opcode, IBV_WR_LOCAL_INV);
	assert_int_equal(f->sent[1].invalidate_rkey, old);
	assert_int_equal(f->sent[2].opcode, IBV_WR_BIND_MW);
	assert_int_equal(f->sent[2].bind_mw.rkey, ibv_inc_rkey(old));
	assert_int_equal(f->sent[2].bind_mw.bind_info.mw_access_flags,
			 IBV_ACCESS_REMOTE_READ);
	/* the provider is told the window's current key as it posts */
	assert_int_equal(f->mw.rkey, old);
	assert_int_equal(rs_mw_describe(mw, 0).rkey, ibv_inc_rkey(old));
	rs_mw_delete(&mw);
}

static void a_lost_bind_changes_nothing(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_mw *mw = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_mw_new(&f->peer, &mw, &err), 0);
	f->post_fails = EIO;
	assert_int_equal(rs_mw_bind(&f->conn, mw, &f->rs_mr, 0, 64,
				    RS_MR_REMOTE_WRITE, 1, 0),
			 RS_E_LOST);
	struct rs_mr_desc d = rs_mw_describe(mw, 0);
	assert_int_equal(d.rkey, 0x1200); /* still the key before */
	assert_int_equal(d.length, 0);
	/* never bound: a revoke posts nothing */
	f->post_fails = 0;
	assert_int_equal(rs_mw_revoke(&f->conn, mw, 2, 0), 0);
	assert_int_equal(f->nsent, 0);
	rs_mw_delete(&mw);
}

static void revoking_invalidates_the_last_key(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_mw *mw = 0;
	struct rs_error err = {0};
	assert_int_equal(rs_mw_new(&f->peer, &mw, &err), 0);
	assert_int_equal(rs_mw_bind(&f->conn, mw, &f->rs_mr, 0, 64,
				    RS_MR_REMOTE_WRITE, 1, 0),
			 0);
	uint32_t key = rs_mw_describe(mw, 0).rkey;
	assert_int_equal(rs_mw_revoke(&f->conn, mw, 7, RS_POST_SIGNALED), 0);
	assert_int_equal(f->nsent, 2);
	assert_int_equal(f->sent[1].opcode, IBV_WR_LOCAL_INV);
	assert_int_equal(f->sent[1].invalidate_rkey, key);
	assert_int_equal(f->sent[1].send_flags, IBV_SEND_SIGNALED);
	assert_int_equal(rs_mw_describe(mw, 0).length, 0);
	/* bound again after a revoke: no second invalidation */
	assert_int_equal(rs_mw_bind(&f->conn, mw, &f->rs_mr, 0, 64,
				    RS_MR_REMOTE_WRITE, 1, 0),
			 0);
	assert_int_equal(f->nsent, 3);
	assert_int_equal(f->sent[2].opcode, IBV_WR_BIND_MW);
	rs_mw_delete(&mw);
}

static void what_the_device_binds(void **state)
{
	struct fake_verbs *f = *state;
	assert_true(rs_peer_has_windows(&f->peer));
	assert_true(rs_peer_windows_bounded(&f->peer));
	f->attr.vendor_id = 0xffffff; /* Soft-RoCE's */
	assert_true(rs_peer_has_windows(&f->peer));
	assert_false(rs_peer_windows_bounded(&f->peer));
	f->attr.device_cap_flags = IBV_DEVICE_MEM_WINDOW; /* type 1 only */
	assert_false(rs_peer_has_windows(&f->peer));
	f->attr.device_cap_flags = IBV_DEVICE_MEM_WINDOW_TYPE_2A;
	assert_true(rs_peer_has_windows(&f->peer));
	f->query_fails = EIO;
	assert_false(rs_peer_has_windows(&f->peer));
	assert_false(rs_peer_windows_bounded(&f->peer));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(a_window_is_type_2, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_window_not_made_says_why, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(binding_moves_the_key, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_lost_bind_changes_nothing, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(revoking_invalidates_the_last_key,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(what_the_device_binds, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
