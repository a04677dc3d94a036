/* The pool target and the receiver's commit rule on a real libpmemlog pool
 * in a plain file (page cache), read back with libpmemlog itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../temp_pool.h"
#include "methods/commit.h"
#include "methods/recv_method.h"
#include "pool/pmdk_log.h"
#include "pool/pmem_target.h"
#include "proto/pool_layout.h"
#include "sender/verify_reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#define POOL_SIZE (8u << 20)

struct fixture {
	char path[64];
	struct recv_pmem_target t;
	uint8_t ring[64 * 1024];
	struct recv_staging staging;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (temp_pool_open(f->path, "/tmp/rs-test-pool-XXXXXX", &f->t,
			   POOL_SIZE))
		return -1;
	f->staging.ring = f->ring;
	f->staging.length = sizeof(f->ring);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	temp_pool_close(f->path, &f->t);
	free(f);
	return 0;
}

struct walk_buf {
	uint8_t data[64 * 1024];
	size_t len;
};

static int collect(const void *buf, size_t len, void *arg)
{
	struct walk_buf *w = arg;
	memcpy(w->data + w->len, buf, len);
	w->len += len;
	return 1;
}

/* What libpmemlog itself sees in the pool after we close it. */
static void read_back(struct fixture *f, struct walk_buf *w)
{
	recv_pmem_target_close(&f->t);
	struct recv_pmdk_log *plp = recv_pmdk_log_open(f->path);
	assert_non_null(plp);
	w->len = 0;
	recv_pmdk_log_walk(plp, collect, w);
	recv_pmdk_log_close(plp);
	assert_int_equal(recv_pmdk_log_check(f->path), 1);
	struct rs_error err = {0};
	assert_int_equal(recv_pmem_target_open(&f->t, f->path, 0, &err), 0);
}

/* This process's resident pages of files it maps (kiB): RssFile plus
 * RssShmem (/tmp may be a tmpfs). */
static long mapped_file_kib(void)
{
	FILE *fp = fopen("/proc/self/status", "r");
	char line[256];
	long kib = 0, v;
	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "RssFile: %ld", &v) == 1 ||
		    sscanf(line, "RssShmem: %ld", &v) == 1)
			kib += v;
	if (fp)
		fclose(fp);
	return kib;
}

/* A page-cache pool whose last sender left leaves the receiver's resident
 * memory, and keeps every byte. */
static void released_pages_leave_rss_and_keep_content(void **state)
{
	struct fixture *f = *state;
	uint8_t *data = f->t.base + f->t.start;
	size_t len = f->t.end - f->t.start;
	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 7u);
	long touched = mapped_file_kib();
	recv_pmem_target_release_pages(&f->t);
	long released = mapped_file_kib();
	assert_true(touched - released >= (long)(len >> 10) * 9 / 10);
	for (size_t i = 0; i < len; i++)
		if (data[i] != (uint8_t)(i * 7u))
			fail_msg("byte %zu changed", i);
}

static const struct recv_method *const gpspm = &recv_method_gpspm;
static const struct recv_method *const staged = &recv_method_staged;

static void geometry_of_fresh_pool(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(f->t.start, 8192);
	assert_int_equal(f->t.end, POOL_SIZE);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), 8192);
}

static void gpspm_commits_in_place(void **state)
{
	struct fixture *f = *state;
	/* What an RDMA write would have placed, then the commit request. */
	memcpy(f->t.base + 8192, "hello ", 6);
	struct rs_msg req = {.type = RS_MSG_COMMIT,
			     .seq = 1,
			     .offset = 8192,
			     .length = 6},
		      reply;
	assert_true(recv_commit_apply(&f->t, &f->staging, gpspm, &req, &reply));
	assert_int_equal(reply.type, RS_MSG_COMMIT_DONE);
	assert_int_equal(reply.status, RS_MSG_OK);
	assert_int_equal(reply.seq, 1);
	assert_int_equal(reply.offset, 8198);

	memcpy(f->ring + 4096, "world", 5);
	req = (struct rs_msg){.type = RS_MSG_STAGED_COMMIT,
			      .seq = 2,
			      .offset = 8198,
			      .length = 5,
			      .ring_offset = 4096};
	assert_true(
	    recv_commit_apply(&f->t, &f->staging, staged, &req, &reply));
	assert_int_equal(reply.offset, 8203);

	struct walk_buf w;
	read_back(f, &w);
	assert_int_equal(w.len, 11);
	assert_memory_equal(w.data, "hello world", 11);
}

static void refused_requests_change_nothing(void **state)
{
	struct fixture *f = *state;
	struct rs_msg reply;
	uint8_t before[64];
	memcpy(before, f->t.base + RS_POOL_HDR_SIZE, sizeof(before));

	/* Not at the write offset: a gap would commit garbage. */
	struct rs_msg req = {
	    .type = RS_MSG_COMMIT, .offset = 8192 + 10, .length = 4};
	assert_false(
	    recv_commit_apply(&f->t, &f->staging, gpspm, &req, &reply));
	assert_int_equal(reply.status, RS_MSG_NOT_CONTIGUOUS);

	/* Past the end of the log, before its start, into the header. */
	req = (struct rs_msg){
	    .type = RS_MSG_COMMIT, .offset = 8192, .length = POOL_SIZE};
	assert_false(
	    recv_commit_apply(&f->t, &f->staging, gpspm, &req, &reply));
	assert_int_equal(reply.status, RS_MSG_OUT_OF_RANGE);
	req = (struct rs_msg){.type = RS_MSG_COMMIT, .offset = 0, .length = 8};
	assert_false(
	    recv_commit_apply(&f->t, &f->staging, gpspm, &req, &reply));
	assert_int_equal(reply.status, RS_MSG_OUT_OF_RANGE);

	/* A staged copy from outside the ring. */
	req = (struct rs_msg){.type = RS_MSG_STAGED_COMMIT,
			      .offset = 8192,
			      .length = 16,
			      .ring_offset = sizeof(f->ring) - 8};
	assert_false(
	    recv_commit_apply(&f->t, &f->staging, staged, &req, &reply));
	assert_int_equal(reply.status, RS_MSG_OUT_OF_RANGE);
	req.ring_offset = UINT64_MAX - 4;
	assert_false(
	    recv_commit_apply(&f->t, &f->staging, staged, &req, &reply));

	/* A request of another method than the session's. */
	req =
	    (struct rs_msg){.type = RS_MSG_COMMIT, .offset = 8192, .length = 4};
	assert_false(
	    recv_commit_apply(&f->t, &f->staging, staged, &req, &reply));
	assert_int_equal(reply.status, RS_MSG_BAD_REQUEST);
	/* A reply is not a request. */
	req.type = RS_MSG_COMMIT_DONE;
	assert_false(
	    recv_commit_apply(&f->t, &f->staging, gpspm, &req, &reply));

	assert_int_equal(reply.offset, 8192);
	assert_memory_equal(before, f->t.base + RS_POOL_HDR_SIZE,
			    sizeof(before));
	struct walk_buf w;
	read_back(f, &w);
	assert_int_equal(w.len, 0);
}

static void fills_to_the_end_exactly(void **state)
{
	struct fixture *f = *state;
	uint64_t len = f->t.end - f->t.start;
	memset(f->t.base + f->t.start, 'x', len);
	struct rs_msg req = {.type = RS_MSG_COMMIT,
			     .offset = f->t.start,
			     .length = len},
		      reply;
	assert_true(recv_commit_apply(&f->t, &f->staging, gpspm, &req, &reply));
	assert_int_equal(reply.offset, f->t.end);
	req = (struct rs_msg){
	    .type = RS_MSG_COMMIT, .offset = f->t.end, .length = 1};
	assert_false(
	    recv_commit_apply(&f->t, &f->staging, gpspm, &req, &reply));
	assert_int_equal(reply.status, RS_MSG_OUT_OF_RANGE);
}

static void not_a_pool_is_refused(void **state)
{
	(void)state;
	char path[] = "/tmp/rs-test-notpool-XXXXXX";
	int fd = mkstemp(path);
	assert_true(ftruncate(fd, 4u << 20) == 0);
	assert_true(write(fd, "plain text\n", 11) == 11);
	close(fd);
	struct recv_pmem_target t;
	struct rs_error err = {0};
	assert_int_equal(recv_pmem_target_open(&t, path, 0, &err), RS_E_IO);
	assert_non_null(strstr(err.msg, "not a usable pmemlog pool"));
	assert_null(strchr(err.msg, '\n'));
	/* --create must not overwrite someone's file either. */
	assert_int_equal(recv_pmem_target_open(&t, path, 8u << 20, &err),
			 RS_E_IO);
	assert_non_null(strstr(err.msg, "refusing to overwrite"));
	unlink(path);

	assert_int_equal(
	    recv_pmem_target_open(&t, "/tmp/rs-no-such-pool", 0, &err),
	    RS_E_IO);
	assert_non_null(strstr(err.msg, "--create"));
}

static void verify_requests_see_committed_bytes_only(void **state)
{
	struct fixture *f = *state;
	memcpy(f->t.base + 8192, "committed", 9);
	struct rs_msg req = {.type = RS_MSG_COMMIT,
			     .offset = 8192,
			     .length = 9},
		      reply;
	assert_true(recv_commit_apply(&f->t, &f->staging, gpspm, &req, &reply));
	memcpy(f->t.base + 8192 + 9, "uncommitted", 11);

	struct recv_ring ring = {.base = f->ring, .length = sizeof(f->ring)};
	/* Log positions: the pool's first byte is position 0. */
	req = (struct rs_msg){
	    .type = RS_MSG_HASH, .seq = 3, .offset = 0, .length = 9};
	assert_true(recv_verify_apply(&f->t, 0, &ring, true, &req, &reply));
	assert_int_equal(reply.type, RS_MSG_HASH_DONE);
	assert_int_equal(reply.seq, 3);
	assert_true(reply.hash == XXH3_64bits("committed", 9));

	/* Not for a sender that did not ask to verify. */
	assert_false(recv_verify_apply(&f->t, 0, &ring, false, &req, &reply));
	assert_int_equal(reply.status, RS_MSG_BAD_REQUEST);
	/* Not beyond the committed end. */
	req.length = 10;
	assert_false(recv_verify_apply(&f->t, 0, &ring, true, &req, &reply));
	assert_int_equal(reply.status, RS_MSG_OUT_OF_RANGE);
	req = (struct rs_msg){.type = RS_MSG_HASH, .offset = 9, .length = 1};
	assert_false(recv_verify_apply(&f->t, 0, &ring, true, &req, &reply));

	req = (struct rs_msg){.type = RS_MSG_READ_STAGE,
			      .offset = 1,
			      .length = 8,
			      .ring_offset = 100};
	assert_true(recv_verify_apply(&f->t, 0, &ring, true, &req, &reply));
	assert_int_equal(reply.type, RS_MSG_READ_STAGE_DONE);
	assert_memory_equal(f->ring + 100, "ommitted", 8);
	req.ring_offset = sizeof(f->ring) - 4; /* past the ring */
	assert_false(recv_verify_apply(&f->t, 0, &ring, true, &req, &reply));
	assert_int_equal(reply.status, RS_MSG_OUT_OF_RANGE);
	/* A commit is not a verify request. */
	req =
	    (struct rs_msg){.type = RS_MSG_COMMIT, .offset = 8201, .length = 1};
	assert_false(recv_verify_apply(&f->t, 0, &ring, true, &req, &reply));
}

static void layout_checks(void **state)
{
	(void)state;
	assert_int_equal(
	    rs_log_geometry_check(8192, 1u << 20, 8192, 1u << 20, 0), 0);
	assert_int_not_equal(
	    rs_log_geometry_check(4096, 1u << 20, 8192, 1u << 20, 0), 0);
	assert_int_not_equal(
	    rs_log_geometry_check(8192, 8192, 8192, 1u << 20, 0), 0);
	assert_int_not_equal(
	    rs_log_geometry_check(8192, 2u << 20, 8192, 1u << 20, 0), 0);
	assert_int_not_equal(
	    rs_log_geometry_check(8192, 1u << 20, 100, 1u << 20, 0), 0);
	assert_int_not_equal(
	    rs_log_geometry_check(8193, 1u << 20, 8193, 1u << 20, 0), 0);
	assert_int_equal(rs_log_range_check(8192, 10, 8192, 8202, 0), 0);
	assert_int_not_equal(rs_log_range_check(8192, 11, 8192, 8202, 0), 0);
	assert_int_not_equal(rs_log_range_check(8191, 1, 8192, 8202, 0), 0);
	assert_int_not_equal(
	    rs_log_range_check(8200, UINT64_MAX, 8192, 8202, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		released_pages_leave_rss_and_keep_content, setup, teardown),
	    cmocka_unit_test_setup_teardown(geometry_of_fresh_pool, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(gpspm_commits_in_place, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(refused_requests_change_nothing,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(fills_to_the_end_exactly, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		verify_requests_see_committed_bytes_only, setup, teardown),
	    cmocka_unit_test(not_a_pool_is_refused),
	    cmocka_unit_test(layout_checks),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
