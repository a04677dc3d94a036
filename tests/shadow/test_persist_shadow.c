/* The persistence model (persist_shadow.c) on a plain file, linked in so
 * that its libpmem2 entry points stand in front of the library's: what a
 * cut keeps is what was persisted, drained, or copied without NOFLUSH, and
 * nothing that was only stored or only flushed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pool/offset_rule.h"
#include "proto/pool_layout.h"
#include "shadow_store.h"

#include <endian.h>
#include <fcntl.h>
#include <libpmem2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define POOL_SIZE (64u << 10)
#define DATA_START 8192u

struct fixture {
	char dir[64];
	char pool[128];
	int fd;
	struct pmem2_source *src;
	struct pmem2_map *map;
	uint8_t *base;
};

static void open_pool(struct fixture *f, int flags)
{
	f->fd = open(f->pool, flags);
	assert_true(f->fd >= 0);
	struct pmem2_config *cfg;
	assert_int_equal(pmem2_source_from_fd(&f->src, f->fd), 0);
	assert_int_equal(pmem2_config_new(&cfg), 0);
	assert_int_equal(pmem2_config_set_required_store_granularity(
			     cfg, PMEM2_GRANULARITY_PAGE),
			 0);
	if (flags == O_RDONLY)
		assert_int_equal(
		    pmem2_config_set_protection(cfg, PMEM2_PROT_READ), 0);
	assert_int_equal(pmem2_map_new(&f->map, cfg, f->src), 0);
	pmem2_config_delete(&cfg);
	f->base = pmem2_map_get_address(f->map);
}

/* A pool file whose data range starts at DATA_START, mapped for writing,
 * its shadow in a folder of its own. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	strcpy(f->dir, "/tmp/shadow-test.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->pool, sizeof(f->pool), "%s/pool", f->dir);
	int fd = open(f->pool, O_RDWR | O_CREAT, 0600);
	assert_int_equal(ftruncate(fd, POOL_SIZE), 0);
	uint64_t start = htole64(DATA_START);
	assert_int_equal(pwrite(fd, &start, 8, RS_LOG_START_OFFSET), 8);
	close(fd);
	setenv("RPMA_SHADOW_DIR", f->dir, 1);
	open_pool(f, O_RDWR);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	unsetenv("RPMA_SHADOW_SKIP");
	unsetenv("RPMA_SHADOW_MIRROR");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* The mapping ends, as a killed receiver's would. */
static void unmap(struct fixture *f)
{
	pmem2_map_delete(&f->map);
	pmem2_source_delete(&f->src);
	close(f->fd);
}

/* The power goes: the mapping ends as a killed receiver's would, the pool
 * is put back as its shadow says. */
static void cut(struct fixture *f)
{
	unmap(f);
	assert_int_equal(shadow_restore(f->dir, 0, 0), 1);
}

/* Whether the pool holds n bytes of c at off after the cut. */
static int holds(const struct fixture *f, uint64_t off, int c, size_t n)
{
	uint8_t buf[256], want[256];
	int fd = open(f->pool, O_RDONLY);
	assert_true(n <= sizeof(buf) &&
		    pread(fd, buf, n, (off_t)off) == (ssize_t)n);
	close(fd);
	memset(want, c, n);
	return !memcmp(buf, want, n);
}

static void a_persisted_range_is_kept_a_stored_one_is_not(void **state)
{
	struct fixture *f = *state;
	pmem2_persist_fn persist = pmem2_get_persist_fn(f->map);
	memset(f->base + DATA_START, 'A', 64);
	persist(f->base + DATA_START, 64);
	memset(f->base + DATA_START + 64, 'B', 64);
	cut(f);
	assert_true(holds(f, DATA_START, 'A', 64));
	assert_true(holds(f, DATA_START + 64, 0, 64));
}

static void a_flushed_range_is_kept_once_drained(void **state)
{
	struct fixture *f = *state;
	pmem2_flush_fn flush = pmem2_get_flush_fn(f->map);
	pmem2_drain_fn drain = pmem2_get_drain_fn(f->map);
	memset(f->base + DATA_START, 'C', 64);
	flush(f->base + DATA_START, 64);
	drain();
	memset(f->base + DATA_START + 64, 'D', 64);
	flush(f->base + DATA_START + 64, 64);
	cut(f);
	assert_true(holds(f, DATA_START, 'C', 64));
	assert_true(holds(f, DATA_START + 64, 0, 64));
}

static void a_copy_is_kept_unless_not_flushed_or_not_drained(void **state)
{
	struct fixture *f = *state;
	pmem2_memcpy_fn copy = pmem2_get_memcpy_fn(f->map);
	pmem2_memset_fn set = pmem2_get_memset_fn(f->map);
	pmem2_drain_fn drain = pmem2_get_drain_fn(f->map);
	uint8_t e[64];
	memset(e, 'E', sizeof(e));
	copy(f->base + DATA_START, e, 64, PMEM2_F_MEM_NONTEMPORAL);
	set(f->base + DATA_START + 64, 'F', 64, PMEM2_F_MEM_NOFLUSH);
	set(f->base + DATA_START + 128, 'G', 64, PMEM2_F_MEM_NODRAIN);
	drain();
	set(f->base + DATA_START + 192, 'H', 64, PMEM2_F_MEM_NODRAIN);
	cut(f);
	assert_true(holds(f, DATA_START, 'E', 64));
	assert_true(holds(f, DATA_START + 64, 0, 64));
	assert_true(holds(f, DATA_START + 128, 'G', 64));
	assert_true(holds(f, DATA_START + 192, 0, 64));
}

/* RPMA_SHADOW_SKIP=word: the word's persist is left out, the data's is
 * not; a persist spanning both keeps the rest. */
static void a_skipped_kind_is_left_out_and_nothing_else(void **state)
{
	struct fixture *f = *state;
	setenv("RPMA_SHADOW_SKIP", "word", 1);
	pmem2_persist_fn persist = pmem2_get_persist_fn(f->map);
	memset(f->base + RS_LOG_WRITE_OFFSET - 8, 'W', 24);
	persist(f->base + RS_LOG_WRITE_OFFSET - 8, 24);
	memset(f->base + DATA_START, 'A', 64);
	persist(f->base + DATA_START, 64);
	cut(f);
	assert_true(holds(f, RS_LOG_WRITE_OFFSET - 8, 'W', 8));
	assert_true(holds(f, RS_LOG_WRITE_OFFSET, 0, 8));
	assert_true(holds(f, RS_LOG_WRITE_OFFSET + 8, 'W', 8));
	assert_true(holds(f, DATA_START, 'A', 64));
}

static void skipping_data_leaves_the_header_alone(void **state)
{
	struct fixture *f = *state;
	setenv("RPMA_SHADOW_SKIP", "data", 1);
	pmem2_persist_fn persist = pmem2_get_persist_fn(f->map);
	memset(f->base + RECV_OFFSET_FLOOR_AT, 'L', 32);
	persist(f->base + RECV_OFFSET_FLOOR_AT, 32);
	memset(f->base + DATA_START, 'A', 64);
	persist(f->base + DATA_START, 64);
	cut(f);
	assert_true(holds(f, RECV_OFFSET_FLOOR_AT, 'L', 32));
	assert_true(holds(f, DATA_START, 0, 64));
}

/* RPMA_SHADOW_DEVICE: a one-sided writer's bytes, stored by the device,
 * are kept once the receiver persists the word that covers them; those
 * past the word are not. */
static void the_device_s_bytes_are_kept_up_to_the_persisted_word(void **state)
{
	struct fixture *f = *state;
	setenv("RPMA_SHADOW_DEVICE", "1", 1);
	memset(f->base + DATA_START, 'A', 128);
	uint64_t word = htole64(DATA_START + 64);
	memcpy(f->base + RS_LOG_WRITE_OFFSET, &word, 8);
	pmem2_get_persist_fn(f->map)(f->base + RS_LOG_WRITE_OFFSET, 8);
	unsetenv("RPMA_SHADOW_DEVICE");
	cut(f);
	assert_true(holds(f, DATA_START, 'A', 64));
	assert_true(holds(f, DATA_START + 64, 0, 64));
}

/* What was in the pool when it was mapped counts as persistent; a
 * read-only mapping has no shadow of its own. */
static void a_read_only_look_is_not_followed(void **state)
{
	struct fixture *f = *state;
	cut(f);
	char img[256];
	snprintf(img, sizeof(img), "%s/%s.img", f->dir, f->pool);
	for (char *p = img + strlen(f->dir) + 1; *p; p++)
		*p = *p == '/' ? '%' : *p;
	assert_int_equal(unlink(img), 0); /* the writer's shadow, gone */
	open_pool(f, O_RDONLY);
	assert_int_equal(access(img, F_OK), -1); /* none made for the look */
	unmap(f);
}

/* The pool mapped again with its shadow written through to a mirror in
 * the folder mirror (made in the test's folder). */
static void reopen_with_mirror(struct fixture *f, char *mirror, size_t cap)
{
	snprintf(mirror, cap, "%s/mirror", f->dir);
	assert_int_equal(mkdir(mirror, 0700), 0);
	unmap(f);
	setenv("RPMA_SHADOW_MIRROR", mirror, 1);
	open_pool(f, O_RDWR);
}

/* A cut of the whole host: the shadow (in the machine's tmpfs) goes with
 * it, the mirror (RPMA_SHADOW_MIRROR, on the test bed's host) restores the
 * pool, and it holds each persist as it was made. */
static void a_mirror_restores_what_was_persisted(void **state)
{
	struct fixture *f = *state;
	char mirror[160];
	reopen_with_mirror(f, mirror, sizeof(mirror));
	pmem2_persist_fn persist = pmem2_get_persist_fn(f->map);
	memset(f->base + DATA_START, 'A', 64);
	persist(f->base + DATA_START, 64);
	memset(f->base + DATA_START + 64, 'B', 64);
	unmap(f);
	assert_int_equal(shadow_restore(mirror, 0, 0), 1);
	assert_true(holds(f, DATA_START, 'A', 64));
	assert_true(holds(f, DATA_START + 64, 0, 64));
}

/* A receiver's start cut short while it writes a new mirror (tens of MiB
 * through the test bed's share: it happens): the mirror before it stays
 * whole, and restores the pool. The write is cut short here by the
 * file-size limit, past which the new mirror cannot grow. */
static void a_mirror_cut_short_leaves_the_one_before(void **state)
{
	struct fixture *f = *state;
	char mirror[160];
	reopen_with_mirror(f, mirror, sizeof(mirror));
	uint8_t *tail = f->base + POOL_SIZE - 4096;
	memset(tail, 'A', 64);
	pmem2_get_persist_fn(f->map)(tail, 64);
	memset(tail, 'Z', 64); /* on the PMem when the next start maps it */
	struct shadow sh;
	struct rlimit was;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	struct rlimit half = {POOL_SIZE / 2, was.rlim_max};
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &half), 0);
	int rc = shadow_store_open(f->dir, f->pool, f->base, POOL_SIZE, &sh);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
	assert_int_equal(rc, -1);
	unmap(f);
	assert_int_equal(shadow_restore(mirror, 0, 0), 1);
	assert_true(holds(f, POOL_SIZE - 4096, 'A', 64));
}

/* A word the writer made persistent through the device (--keep-word)
 * stays as the pool holds it; the bytes around it go back as persisted. */
static void a_kept_range_stays_as_the_pool_holds_it(void **state)
{
	struct fixture *f = *state;
	memset(f->base + RS_LOG_WRITE_OFFSET - 8, 'W', 24);
	unmap(f);
	assert_int_equal(shadow_restore(f->dir, RS_LOG_WRITE_OFFSET,
					RS_LOG_WRITE_OFFSET + 8),
			 1);
	assert_true(holds(f, RS_LOG_WRITE_OFFSET, 'W', 8));
	assert_true(holds(f, RS_LOG_WRITE_OFFSET - 8, 0, 8));
	assert_true(holds(f, RS_LOG_WRITE_OFFSET + 8, 0, 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		a_persisted_range_is_kept_a_stored_one_is_not, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_flushed_range_is_kept_once_drained, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_copy_is_kept_unless_not_flushed_or_not_drained, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_skipped_kind_is_left_out_and_nothing_else, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		skipping_data_leaves_the_header_alone, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		the_device_s_bytes_are_kept_up_to_the_persisted_word, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_mirror_restores_what_was_persisted, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_mirror_cut_short_leaves_the_one_before, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_read_only_look_is_not_followed,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_kept_range_stays_as_the_pool_holds_it, setup, teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
