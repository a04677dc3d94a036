/* The receiver's table of persistence methods: which method is offered
 * under which conditions (and what is said when one is not), which one a
 * session gets for what its sender asked, and what applying a commit does
 * for each method on a fake pool in plain memory whose persist and
 * non-temporal copy are recorded, so the commit rule's order (the batch's
 * bytes, then the write offset) is seen, range checks included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "methods/commit.h"
#include "methods/recv_method.h"
#include "proto/pool_layout.h"

#include <string.h>

#define POOL_END (64u * 1024) /* the fake pool: header, then the log */
#define LOG_START 8192u
#define RING_LEN 4096u

/* ---- which methods are offered ---- */

static uint8_t offered_mask(const struct recv_offer *o)
{
	uint8_t mask = 0;
	for (size_t i = 0; recv_methods[i]; i++) {
		struct rs_error why = {0};
		if (recv_methods[i]->offered(o, &why)) {
			mask |= (uint8_t)RS_METHOD_BIT(recv_methods[i]->id);
			assert_int_equal(why.msg[0], 0);
		}
	}
	return mask;
}

/* APM needs all three and a key to the whole pool; GPSPM a pool it can
 * write, by key or through windows; staged nothing; flush the device's
 * operations, byte-addressable PMem registered for flushes with a key to
 * all of it, and a log that is not append-only. */
static void each_method_is_offered_where_it_can_work(void **state)
{
	(void)state;
	for (unsigned bits = 0; bits < 128; bits++) {
		struct recv_offer o = {.path = "/pool",
				       .direct_write_to_pmem = bits & 1,
				       .byte_addressable = bits & 2,
				       .pool_writable = bits & 4,
				       .pool_windows = bits & 8,
				       .flush_ops = bits & 16,
				       .pool_flushable = bits & 32,
				       .append_only = bits & 64};
		uint8_t want = RS_METHOD_BIT(RS_METHOD_STAGED);
		if (o.pool_writable || o.pool_windows)
			want |= RS_METHOD_BIT(RS_METHOD_GPSPM);
		if ((bits & 7) == 7)
			want |= RS_METHOD_BIT(RS_METHOD_APM);
		if ((bits & (2 | 4 | 16 | 32 | 64)) == (2 | 4 | 16 | 32))
			want |= RS_METHOD_BIT(RS_METHOD_FLUSH);
		struct rs_error why = {0};
		bool flush = recv_method_flush.offered(&o, &why);
		/* it always says why not (for -v), and nothing when it is */
		assert_true(!flush || why.msg[0] == 0);
		assert_true(flush || strstr(why.msg, "not offering flush"));
		assert_int_equal(offered_mask(&o), want);
	}
}

/* Each reason flush is absent is named, the build's or device's first. */
static void flush_says_why_it_is_absent(void **state)
{
	(void)state;
	struct recv_offer o = {.path = "/mnt/pool",
			       .byte_addressable = true,
			       .pool_writable = true,
			       .pool_flushable = true,
			       .flush_why_not = "this build has no RDMA FLUSH"};
	struct rs_error why = {0};
	assert_false(recv_method_flush.offered(&o, &why));
	assert_string_equal(why.msg, "/mnt/pool: not offering flush: this "
				     "build has no RDMA FLUSH");
	o.flush_ops = true;
	o.byte_addressable = false;
	memset(&why, 0, sizeof(why));
	assert_false(recv_method_flush.offered(&o, &why));
	assert_non_null(strstr(why.msg, "not byte-addressable PMem"));
	o.byte_addressable = true;
	o.pool_flushable = false;
	memset(&why, 0, sizeof(why));
	assert_false(recv_method_flush.offered(&o, &why));
	assert_non_null(strstr(why.msg, "devdax"));
	/* the device's own reason, when the registration said one */
	o.flush_reg_why_not = "the device cannot pin that much";
	memset(&why, 0, sizeof(why));
	assert_false(recv_method_flush.offered(&o, &why));
	assert_string_equal(why.msg,
			    "/mnt/pool: not offering flush: the RDMA device "
			    "cannot register it for persistent flushes: the "
			    "device cannot pin that much");
	o.flush_reg_why_not = 0;
	o.pool_flushable = true;
	o.append_only = true;
	memset(&why, 0, sizeof(why));
	assert_false(recv_method_flush.offered(&o, &why));
	assert_non_null(strstr(why.msg, "append-only"));
	assert_true(recv_method_flush.notice_verbose);
	assert_false(recv_method_apm.notice_verbose);
}

static const char *apm_notice(bool direct, bool byte_addressable,
			      bool registered, struct rs_error *why)
{
	struct recv_offer o = {.path = "/mnt/pool",
			       .direct_write_to_pmem = direct,
			       .byte_addressable = byte_addressable,
			       .pool_writable = registered};
	memset(why, 0, sizeof(*why));
	assert_false(recv_method_apm.offered(&o, why));
	return why->msg;
}

/* Only a request that cannot be honoured is news: APM asked for on the
 * page cache. Not asked for, or the pool unregistrable (said already):
 * nothing. */
static void apm_says_why_only_when_asked_for(void **state)
{
	(void)state;
	struct rs_error why;
	assert_string_equal(apm_notice(true, false, true, &why),
			    "--direct-write-to-pmem ignored: /mnt/pool is not "
			    "byte-addressable PMem; not offering apm");
	assert_string_equal(apm_notice(false, true, true, &why), "");
	assert_string_equal(apm_notice(true, true, false, &why), "");
	assert_string_equal(apm_notice(true, false, false, &why), "");
	/* reached through windows only (the range has no key of its own):
	 * still the page cache's notice */
	struct recv_offer o = {.path = "/mnt/pool",
			       .direct_write_to_pmem = true,
			       .pool_windows = true};
	memset(&why, 0, sizeof(why));
	assert_false(recv_method_apm.offered(&o, &why));
	assert_string_equal(why.msg,
			    "--direct-write-to-pmem ignored: /mnt/pool is not "
			    "byte-addressable PMem; not offering apm");
	/* PMem reached through windows whose whole range the device would
	 * not register (Soft-RoCE past 1 GiB on Linux 6.12): its reason */
	o.byte_addressable = true;
	o.pool_why_not = "the device cannot pin that much";
	memset(&why, 0, sizeof(why));
	assert_false(recv_method_apm.offered(&o, &why));
	assert_string_equal(why.msg, "/mnt/pool: not offering apm: the RDMA "
				     "device cannot register all of it for "
				     "direct writes: the device cannot pin "
				     "that much");
	/* an append-only log is never registered whole: no reason to give */
	o.pool_why_not = 0;
	memset(&why, 0, sizeof(why));
	assert_false(recv_method_apm.offered(&o, &why));
	assert_string_equal(why.msg, "");
	struct recv_offer none = {.path = "/mnt/pool"};
	memset(&why, 0, sizeof(why));
	assert_false(recv_method_gpspm.offered(&none, &why));
	assert_string_equal(why.msg, "");
}

/* ---- the table and the session's choice ---- */

static void the_table_lists_each_method_fastest_first(void **state)
{
	(void)state;
	const struct recv_method *const want[] = {
	    &recv_method_apm, &recv_method_gpspm, &recv_method_staged,
	    &recv_method_flush};
	size_t n = 0;
	while (recv_methods[n])
		n++;
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(recv_methods[i], want[i]);
		assert_ptr_equal(recv_method_get(want[i]->id), want[i]);
		assert_non_null(want[i]->offered);
	}
	assert_null(recv_method_get(RS_METHOD_AUTO));
	assert_null(recv_method_get((enum rs_method)9));
	/* The one method whose memory is taken only while a session of its
	 * is connected (staged: its ring); the others register the pool. */
	assert_false(recv_method_apm.on_demand);
	assert_false(recv_method_gpspm.on_demand);
	assert_true(recv_method_staged.on_demand);
	/* The requests they take: APM's sender commits alone. */
	assert_int_equal(recv_method_apm.commit_type, 0);
	assert_int_equal(recv_method_gpspm.commit_type, RS_MSG_COMMIT);
	assert_int_equal(recv_method_staged.commit_type, RS_MSG_STAGED_COMMIT);
	assert_int_equal(recv_method_flush.commit_type, 0);
	assert_false(recv_method_flush.on_demand);
}

static void a_session_gets_what_its_sender_picks(void **state)
{
	(void)state;
	const uint8_t apm = RS_METHOD_BIT(RS_METHOD_APM);
	const uint8_t gpspm = RS_METHOD_BIT(RS_METHOD_GPSPM);
	const uint8_t staged = RS_METHOD_BIT(RS_METHOD_STAGED);
	assert_ptr_equal(recv_method_choose(RS_METHOD_ALL, RS_METHOD_AUTO),
			 &recv_method_flush);
	assert_ptr_equal(recv_method_choose(apm | gpspm, RS_METHOD_AUTO),
			 &recv_method_apm);
	assert_ptr_equal(recv_method_choose(gpspm | staged, RS_METHOD_AUTO),
			 &recv_method_gpspm);
	assert_ptr_equal(recv_method_choose(staged, RS_METHOD_AUTO),
			 &recv_method_staged);
	assert_ptr_equal(recv_method_choose(RS_METHOD_ALL, RS_METHOD_STAGED),
			 &recv_method_staged);
	assert_ptr_equal(recv_method_choose(apm | staged, RS_METHOD_GPSPM),
			 NULL);
	assert_null(recv_method_choose(0, RS_METHOD_AUTO));
}

/* ---- applying commits to a fake pool ---- */

enum call_kind { CALL_PERSIST, CALL_COPY };

struct call {
	enum call_kind kind;
	uint64_t offset; /* from the pool's base */
	uint64_t length;
	unsigned flags;
};

/* The fake pool and what was done to it; the pmem2 hooks have no
 * context, so there is one, here. */
static struct {
	uint8_t pool[POOL_END];
	uint8_t ring[RING_LEN];
	uint8_t before[POOL_END];
	struct recv_pmem_target t;
	struct recv_staging staging;
	struct call calls[8];
	unsigned ncalls;
} fake;

static void record(enum call_kind kind, const void *at, size_t len,
		   unsigned flags)
{
	assert_true(fake.ncalls < sizeof(fake.calls) / sizeof(*fake.calls));
	const uint8_t *p = at;
	assert_true(p >= fake.pool && p + len <= fake.pool + POOL_END);
	fake.calls[fake.ncalls++] = (struct call){
	    kind, (uint64_t)(p - fake.pool), (uint64_t)len, flags};
}

static void fake_persist(const void *ptr, size_t size)
{
	record(CALL_PERSIST, ptr, size, 0);
}

static void *fake_copy(void *dst, const void *src, size_t len, unsigned flags)
{
	record(CALL_COPY, dst, len, flags);
	return memcpy(dst, src, len);
}

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.t.base = fake.pool;
	fake.t.size = POOL_END;
	fake.t.start = LOG_START;
	fake.t.end = POOL_END;
	fake.t.persist = fake_persist;
	fake.t.memcpy_persist = fake_copy;
	recv_pmem_target_commit(&fake.t, LOG_START);
	for (unsigned i = 0; i < RING_LEN; i++)
		fake.ring[i] = (uint8_t)(i * 7 + 1);
	fake.staging = (struct recv_staging){fake.ring, RING_LEN};
	memcpy(fake.before, fake.pool, POOL_END);
	fake.ncalls = 0;
	return 0;
}

static struct rs_msg request(uint8_t type, uint64_t offset, uint64_t length,
			     uint64_t ring_offset)
{
	return (struct rs_msg){.type = type,
			       .seq = 42,
			       .offset = offset,
			       .length = length,
			       .ring_offset = ring_offset};
}

static uint8_t apply(const struct recv_method *m, const struct rs_msg *req)
{
	struct rs_msg reply;
	bool ok = recv_commit_apply(&fake.t, &fake.staging, m, req, &reply);
	assert_int_equal(reply.type, RS_MSG_COMMIT_DONE);
	assert_int_equal(reply.seq, req->seq);
	assert_int_equal(reply.offset, recv_pmem_target_write_offset(&fake.t));
	assert_int_equal(ok, reply.status == RS_MSG_OK);
	return reply.status;
}

/* A refusal touches nothing and persists nothing. */
static void assert_untouched(void)
{
	assert_int_equal(fake.ncalls, 0);
	assert_memory_equal(fake.pool, fake.before, POOL_END);
}

/* Two calls: the first made the batch [at, end) persistent as `kind`
 * says, the second then the write offset, which is now end. */
static void assert_batch_then_offset(enum call_kind kind, unsigned flags,
				     uint64_t at, uint64_t end)
{
	assert_int_equal(fake.ncalls, 2);
	assert_int_equal(fake.calls[0].kind, kind);
	assert_int_equal(fake.calls[0].offset, at);
	assert_int_equal(fake.calls[0].length, end - at);
	assert_int_equal(fake.calls[0].flags, flags);
	assert_int_equal(fake.calls[1].kind, CALL_PERSIST);
	assert_int_equal(fake.calls[1].offset, RS_LOG_WRITE_OFFSET);
	assert_int_equal(fake.calls[1].length, 8);
	assert_int_equal(recv_pmem_target_write_offset(&fake.t), end);
}

static void gpspm_persists_in_place_then_commits(void **state)
{
	(void)state;
	memcpy(fake.pool + LOG_START, "written by RDMA", 15);
	struct rs_msg req = request(RS_MSG_COMMIT, LOG_START, 15, 0);
	assert_int_equal(apply(&recv_method_gpspm, &req), RS_MSG_OK);
	assert_batch_then_offset(CALL_PERSIST, 0, LOG_START, LOG_START + 15);
	assert_memory_equal(fake.pool + LOG_START, "written by RDMA", 15);
}

static void staged_copies_from_the_ring_then_commits(void **state)
{
	(void)state;
	struct rs_msg req = request(RS_MSG_STAGED_COMMIT, LOG_START, 100, 300);
	assert_int_equal(apply(&recv_method_staged, &req), RS_MSG_OK);
	assert_batch_then_offset(CALL_COPY, PMEM2_F_MEM_NONTEMPORAL, LOG_START,
				 LOG_START + 100);
	assert_memory_equal(fake.pool + LOG_START, fake.ring + 300, 100);
	/* The next batch continues it, from the ring's very end. */
	fake.ncalls = 0;
	req = request(RS_MSG_STAGED_COMMIT, LOG_START + 100, 96, RING_LEN - 96);
	assert_int_equal(apply(&recv_method_staged, &req), RS_MSG_OK);
	assert_batch_then_offset(CALL_COPY, PMEM2_F_MEM_NONTEMPORAL,
				 LOG_START + 100, LOG_START + 196);
	assert_memory_equal(fake.pool + LOG_START + 100,
			    fake.ring + RING_LEN - 96, 96);
}

/* A session takes its own method's request and nothing else: APM's and a
 * verifier's (no method) none at all. */
static void each_method_takes_its_own_request_only(void **state)
{
	(void)state;
	const struct recv_method *const methods[] = {
	    NULL, &recv_method_apm, &recv_method_gpspm, &recv_method_staged};
	const uint8_t types[] = {RS_MSG_COMMIT, RS_MSG_STAGED_COMMIT,
				 RS_MSG_COMMIT_DONE, RS_MSG_HASH,
				 RS_MSG_KEEPALIVE};
	for (size_t i = 0; i < 4; i++) {
		for (size_t j = 0; j < sizeof(types); j++) {
			const struct recv_method *m = methods[i];
			if (m && m->commit_type == types[j])
				continue;
			struct rs_msg req = request(types[j], LOG_START, 8, 0);
			assert_int_equal(apply(m, &req), RS_MSG_BAD_REQUEST);
			assert_untouched();
		}
	}
}

static void expect_refused(const struct recv_method *m, struct rs_msg req,
			   uint8_t status)
{
	assert_int_equal(apply(m, &req), status);
	assert_untouched();
}

/* Nothing outside the log: not the header, not the offset word, not past
 * the end, not by wrapping around. */
static void commits_outside_the_log_are_refused(void **state)
{
	(void)state;
	const struct recv_method *const writers[] = {&recv_method_gpspm,
						     &recv_method_staged};
	for (size_t i = 0; i < 2; i++) {
		uint8_t type = writers[i]->commit_type;
		const uint8_t out = RS_MSG_OUT_OF_RANGE;
		expect_refused(writers[i], request(type, 0, 8, 0), out);
		expect_refused(writers[i],
			       request(type, RS_LOG_WRITE_OFFSET, 8, 0), out);
		expect_refused(writers[i], request(type, LOG_START - 8, 16, 0),
			       out);
		expect_refused(writers[i],
			       request(type, LOG_START, POOL_END, 0), out);
		expect_refused(writers[i], request(type, POOL_END, 1, 0), out);
		expect_refused(writers[i], request(type, UINT64_MAX - 4, 16, 0),
			       out);
	}
}

/* A staged batch must lie wholly inside the ring, and there must be one. */
static void staged_sources_outside_the_ring_are_refused(void **state)
{
	(void)state;
	const struct recv_method *m = &recv_method_staged;
	const uint8_t type = RS_MSG_STAGED_COMMIT, out = RS_MSG_OUT_OF_RANGE;
	expect_refused(m, request(type, LOG_START, RING_LEN + 1, 0), out);
	expect_refused(m, request(type, LOG_START, 1, RING_LEN), out);
	expect_refused(m, request(type, LOG_START, 16, RING_LEN - 8), out);
	expect_refused(m, request(type, LOG_START, 16, UINT64_MAX - 4), out);
	/* Out of the ring and not contiguous: the range is named first. */
	expect_refused(m, request(type, LOG_START + 8, 16, RING_LEN - 8), out);
	fake.staging = (struct recv_staging){0};
	expect_refused(m, request(type, LOG_START, 1, 0), out);
}

/* Appends only: a gap, or a batch over committed bytes, is refused. */
static void commits_must_continue_the_log(void **state)
{
	(void)state;
	struct rs_msg req = request(RS_MSG_COMMIT, LOG_START, 64, 0);
	assert_int_equal(apply(&recv_method_gpspm, &req), RS_MSG_OK);
	memcpy(fake.before, fake.pool, POOL_END);
	fake.ncalls = 0;
	const uint8_t gap = RS_MSG_NOT_CONTIGUOUS;
	expect_refused(&recv_method_gpspm,
		       request(RS_MSG_COMMIT, LOG_START + 65, 8, 0), gap);
	expect_refused(&recv_method_gpspm,
		       request(RS_MSG_COMMIT, LOG_START, 8, 0), gap);
	expect_refused(&recv_method_staged,
		       request(RS_MSG_STAGED_COMMIT, LOG_START + 32, 64, 0),
		       gap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(each_method_is_offered_where_it_can_work),
	    cmocka_unit_test(apm_says_why_only_when_asked_for),
	    cmocka_unit_test(flush_says_why_it_is_absent),
	    cmocka_unit_test(the_table_lists_each_method_fastest_first),
	    cmocka_unit_test(a_session_gets_what_its_sender_picks),
	    cmocka_unit_test_setup(gpspm_persists_in_place_then_commits, setup),
	    cmocka_unit_test_setup(staged_copies_from_the_ring_then_commits,
				   setup),
	    cmocka_unit_test_setup(each_method_takes_its_own_request_only,
				   setup),
	    cmocka_unit_test_setup(commits_outside_the_log_are_refused, setup),
	    cmocka_unit_test_setup(staged_sources_outside_the_ring_are_refused,
				   setup),
	    cmocka_unit_test_setup(commits_must_continue_the_log, setup),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
