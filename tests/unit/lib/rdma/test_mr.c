/* Registering memory (src/lib/rdma/mr.c) over the fake device
 * (fake_verbs.h): the access each use asks for as the device's flags
 * (local write wherever the peer writes or a window binds), a mapping that
 * cannot be pinned registered on demand where the device can, each
 * failure's advice by its cause, the description a peer gets, and every
 * region deregistered. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "fake_verbs.h"
#include "rdma/mr.h"

#include <errno.h>
#include <string.h>

static char region[8192];

static int setup(void **state)
{
	*state = fake_verbs_new();
	return 0;
}

static int teardown(void **state)
{
	struct fake_verbs *f = *state;
	assert_int_equal(f->mrs_alive, 0); /* every region deregistered */
	fake_verbs_delete(f);
	return 0;
}

/* The flags a registration with access asked the device for. */
static int flags_of(struct fake_verbs *f, unsigned access)
{
	struct rs_mr *mr = 0;
	struct rs_error err = {0};
	assert_int_equal(
	    rs_mr_reg(&f->peer, region, sizeof(region), access, &mr, &err), 0);
	rs_mr_dereg(&mr);
	assert_null(mr);
	return f->reg_flags[f->nreg - 1];
}

static void access_as_flags(void **state)
{
	struct fake_verbs *f = *state;
	assert_int_equal(flags_of(f, RS_MR_LOCAL), IBV_ACCESS_LOCAL_WRITE);
	assert_int_equal(flags_of(f, RS_MR_REMOTE_WRITE),
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(flags_of(f, RS_MR_REMOTE_READ),
			 IBV_ACCESS_REMOTE_READ);
	assert_int_equal(flags_of(f, RS_MR_BIND),
			 IBV_ACCESS_MW_BIND | IBV_ACCESS_LOCAL_WRITE);
	assert_int_equal(flags_of(f, RS_MR_REMOTE_READ | RS_MR_REMOTE_WRITE),
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ);
}

static void the_peer_gets_its_key(void **state)
{
	struct fake_verbs *f = *state;
	struct rs_mr *mr = 0;
	struct rs_error err = {0};
	assert_int_equal(
	    rs_mr_reg(&f->peer, region, 4096, RS_MR_REMOTE_WRITE, &mr, &err),
	    0);
	struct rs_mr_desc d = rs_mr_describe(mr, 2);
	assert_int_equal(d.addr, (uint64_t)(uintptr_t)region);
	assert_int_equal(d.length, 4096);
	assert_int_equal(d.rkey, f->mrs[0].rkey);
	assert_int_equal(d.usage, 2);
	assert_int_equal(rs_mr_try_dereg(&mr), 0);
	assert_null(mr);
	assert_int_equal(rs_mr_try_dereg(&mr), 0); /* none: nothing */
}

/* What a registration that fails with e says (NULL: it succeeds). */
static const char *refusal(struct fake_verbs *f, int e, bool odp, int *rc)
{
	static struct rs_error err;
	struct rs_mr *mr = 0;
	memset(&err, 0, sizeof(err));
	f->peer.odp_rc_write_read = odp;
	f->reg_errno[0] = e;
	f->nreg_fail = 1;
	*rc = rs_mr_reg(&f->peer, region, sizeof(region), RS_MR_REMOTE_WRITE,
			&mr, &err);
	if (!*rc) {
		rs_mr_dereg(&mr);
		return 0;
	}
	assert_null(mr);
	return err.msg;
}

static void a_refusal_says_why(void **state)
{
	struct fake_verbs *f = *state;
	int rc;
	const char *m = refusal(f, EOPNOTSUPP, false, &rc);
	assert_int_equal(rc, RS_E_PROVIDER);
	assert_string_equal(m, "this memory cannot be pinned (fsdax without "
			       "ODP); use devdax, an ODP-capable device, or "
			       "the staged method");
	m = refusal(f, EINVAL, false, &rc);
	assert_string_equal(m, "the device rejected the region or its access "
			       "flags");
	m = refusal(f, EFAULT, false, &rc);
	assert_string_equal(m, "the address range is not mapped");
	m = refusal(f, ENOMEM, false, &rc);
	assert_int_equal(rc, RS_E_NOMEM);
	assert_true(strstr(m, "locked-memory limit") ||
		    strstr(m, "cannot pin that much"));
}

/* fsdax cannot be pinned: where the device pages on demand, the same
 * region again with IBV_ACCESS_ON_DEMAND. */
static void unpinnable_memory_on_demand(void **state)
{
	struct fake_verbs *f = *state;
	int rc;
	assert_null(refusal(f, EOPNOTSUPP, true, &rc));
	assert_int_equal(rc, 0);
	assert_int_equal(f->nreg, 2);
	assert_int_equal(f->reg_flags[0] & IBV_ACCESS_ON_DEMAND, 0);
	assert_int_equal(f->reg_flags[1], IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_ON_DEMAND);
	/* any other failure is not tried again */
	assert_non_null(refusal(f, EINVAL, true, &rc));
	assert_int_equal(f->nreg, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(access_as_flags, setup, teardown),
	    cmocka_unit_test_setup_teardown(the_peer_gets_its_key, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(a_refusal_says_why, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(unpinnable_memory_on_demand, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
