/* Rotation (rotation/rotation.h) on a real libpmemlog pool in a plain file and
 * an archive directory on the host: a rebase moves the pool's bytes into the
 * archive and starts the pool over; the log's content (archive, then
 * pool) is what a verify sees across the boundary; each state a crash can
 * leave between the steps is finished when the log is opened again; a
 * layout that does not fit is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "commands/export.h"
#include "error.h"
#include "methods/commit.h"
#include "methods/recv_method.h"
#include "pool/log_state.h"
#include "pool/pmem_target.h"
#include "rotation/archiver.h"
#include "rotation/generation.h"
#include "rotation/internal.h" /* a log's lock, held to stall the archiver */
#include "rotation/rotation.h"
#include "sender/verify_reply.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define POOL_SIZE (4u << 20)

struct fixture {
	char dir[64];
	char pool[PATH_MAX];
	struct recv_rotation_config cfg;
	struct recv_pmem_target t;
	struct recv_rotation *rot;
	uint8_t input[8u << 20]; /* what was committed, in order */
	uint64_t committed;
};

static void open_log(struct fixture *f)
{
	struct rs_error err = {0};
	assert_int_equal(recv_pmem_target_open(&f->t, f->pool, POOL_SIZE, &err),
			 0);
	int rc = recv_rotation_open(&f->cfg, "app", &f->t, 0, &f->rot, &err);
	if (rc)
		fail_msg("%s", err.msg);
}

static void close_log(struct fixture *f)
{
	recv_rotation_close(&f->rot);
	recv_pmem_target_close(&f->t);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	strcpy(f->dir, "/tmp/rs-test-rotation-XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	snprintf(f->pool, sizeof(f->pool), "%s/app.pool", f->dir);
	snprintf(f->cfg.dir, sizeof(f->cfg.dir), "%s", f->dir);
	f->cfg.rotate_at = 75;
	for (size_t i = 0; i < sizeof(f->input); i++)
		f->input[i] = (uint8_t)(i * 131 + i / 977);
	open_log(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	close_log(f);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	int rc = system(cmd);
	free(f);
	return rc ? -1 : 0;
}

/* A writer's batch of n input bytes, committed by GPSPM. */
static void commit_next(struct fixture *f, uint64_t n)
{
	uint64_t at = recv_pmem_target_write_offset(&f->t);
	memcpy(f->t.base + at, f->input + f->committed, n);
	struct rs_msg req = {.type = RS_MSG_COMMIT, .offset = at, .length = n},
		      reply;
	assert_true(
	    recv_commit_apply(&f->t, 0, &recv_method_gpspm, &req, &reply));
	f->committed += n;
}

/* What a verify hashes of [pos, +len). */
static uint64_t hash_of(struct fixture *f, uint64_t pos, uint64_t len)
{
	struct recv_ring ring = {0};
	struct rs_msg req = {.type = RS_MSG_HASH, .offset = pos, .length = len},
		      reply;
	assert_true(
	    recv_verify_apply(&f->t, f->rot, &ring, true, &req, &reply));
	return reply.hash;
}

static uint64_t pool_used(const struct fixture *f)
{
	return recv_pmem_target_write_offset(&f->t) - f->t.start;
}

static void rebase_moves_the_pool_into_the_archive(void **state)
{
	struct fixture *f = *state;
	assert_true(recv_rotation_enabled(f->rot));
	assert_int_equal(recv_rotation_base(f->rot), 0);
	commit_next(f, 3u << 20);
	uint64_t base = 0, write = recv_pmem_target_write_offset(&f->t);
	assert_int_equal(recv_rotation_rebase(f->rot, write, &base), RS_MSG_OK);
	assert_int_equal(base, 3u << 20);
	assert_int_equal(pool_used(f), 0);
	unsigned files;
	uint64_t bytes, at;
	recv_rotation_archived(f->rot, &files, &bytes, &at);
	assert_int_equal(files, 1);
	assert_int_equal(bytes, 3u << 20);
	assert_int_equal(at, 3u << 20);
	/* The file is the pool's bytes, named for position 0. */
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/app-00000000000000000000.log", f->dir);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	static uint8_t back[3u << 20];
	assert_int_equal(fread(back, 1, sizeof(back), fp), sizeof(back));
	fclose(fp);
	assert_memory_equal(back, f->input, sizeof(back));
	/* The log goes on after it; a verify reads across the boundary. */
	commit_next(f, 1000);
	assert_int_equal(recv_rotation_end(f->rot), (3u << 20) + 1000);
	assert_true(hash_of(f, (3u << 20) - 500, 1500) ==
		    XXH3_64bits(f->input + (3u << 20) - 500, 1500));
	assert_true(hash_of(f, 0, f->committed) ==
		    XXH3_64bits(f->input, f->committed));
	/* Reopened: the same place. */
	close_log(f);
	open_log(f);
	assert_int_equal(recv_rotation_base(f->rot), 3u << 20);
	assert_int_equal(recv_rotation_first(f->rot), 0);
	assert_int_equal(recv_rotation_end(f->rot), f->committed);
}

/* Wakes the test when the archiver made a rebase's stretch durable. */
static void woken(void *ctx)
{
	atomic_store((atomic_int *)ctx, 1);
}

static void wait_until(bool (*cond)(struct fixture *), struct fixture *f)
{
	for (int i = 0; i < 10000 && !cond(f); i++)
		usleep(1000);
	assert_true(cond(f));
}

static bool stretch_started(struct fixture *f)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/.app-00000000000000000000.log.part",
		 f->dir);
	struct stat st;
	return stat(path, &st) == 0 && st.st_size > 0;
}

static void *nothing(void *arg)
{
	return arg;
}

/* The kernel's count of this process's threads. */
static int threads_counted(void)
{
	FILE *st = fopen("/proc/self/status", "r");
	char line[256];
	int n = -1;
	assert_non_null(st);
	while (fgets(line, sizeof(line), st))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(st);
	return n;
}

/* This process's threads now (one made and joined first: a sanitizer's
 * runtime starts a thread of its own at the first). The least of a few
 * counts 1 ms apart: a joined thread is counted until the kernel has
 * released it, a moment after pthread_join returns (Debian 13's host
 * tests counted it once). */
static int threads_now(void)
{
	pthread_t t;
	assert_int_equal(pthread_create(&t, 0, nothing, 0), 0);
	pthread_join(t, 0);
	int least = threads_counted();
	for (int i = 0; i < 20; i++) {
		usleep(1000);
		int n = threads_counted();
		if (n < least)
			least = n;
	}
	return least;
}

/* The fixture's log opened again with an archiver of its own. */
static struct recv_archiver *with_an_archiver(struct fixture *f)
{
	struct recv_archiver *a = 0;
	struct rs_error err = {0};
	assert_int_equal(recv_archiver_start(&a, &err), 0);
	close_log(f);
	assert_int_equal(recv_pmem_target_open(&f->t, f->pool, POOL_SIZE, &err),
			 0);
	assert_int_equal(
	    recv_rotation_open(&f->cfg, "app", &f->t, a, &f->rot, &err), 0);
	return a;
}

/* With the receiver's archiver: the pool is copied once rotate-at full, on
 * the archiver's thread, and a rebase is begun on the log's thread, made
 * durable on the archiver's and finished on the log's, with the same
 * result as all at once. Its threads start as logs are queued: none
 * before, one for one log. */
static void the_archiver_copies_and_seals_off_the_logs_thread(void **state)
{
	struct fixture *f = *state;
	int threads = threads_now();
	struct recv_archiver *a = with_an_archiver(f);
	assert_int_equal(threads_now(), threads);
	atomic_int sealed = 0;
	recv_rotation_on_rebased(f->rot, woken, &sealed);
	commit_next(f, 1u << 20); /* under rotate-at: nothing to copy */
	recv_rotation_nudge(f->rot);
	usleep(20000);
	assert_false(stretch_started(f));
	commit_next(f, 2u << 20);
	recv_rotation_nudge(f->rot);
	wait_until(stretch_started, f);
	assert_int_equal(threads_now(), threads + 1);
	uint64_t base = 0, write = recv_pmem_target_write_offset(&f->t);
	uint8_t status = 0xff;
	assert_int_equal(recv_rotation_rebase_begin(f->rot, write), RS_MSG_OK);
	assert_true(recv_rotation_rebasing(f->rot));
	for (int i = 0; i < 10000 && !atomic_load(&sealed); i++)
		usleep(1000);
	assert_true(atomic_load(&sealed));
	assert_int_equal(pool_used(f), 3u << 20); /* the log's thread's step */
	assert_true(recv_rotation_rebase_poll(f->rot, &status, &base));
	assert_int_equal(status, RS_MSG_OK);
	assert_int_equal(base, 3u << 20);
	assert_int_equal(pool_used(f), 0);
	assert_false(recv_rotation_rebasing(f->rot));
	assert_false(recv_rotation_rebase_poll(f->rot, &status, &base));
	commit_next(f, 1000);
	assert_true(hash_of(f, 0, f->committed) ==
		    XXH3_64bits(f->input, f->committed));
	close_log(f);
	recv_archiver_stop(&a);
	open_log(f);
	assert_int_equal(recv_rotation_base(f->rot), 3u << 20);
	assert_int_equal(recv_rotation_end(f->rot), f->committed);
}

/* As many other logs as the archiver has threads, and two more. */
#define OTHERS (RECV_ARCHIVER_THREADS + 2)
#define HELD RECV_ARCHIVER_THREADS

static bool stretch_of(const struct fixture *f, const char *name)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/.%s-00000000000000000000.log.part",
		 f->dir, name);
	struct stat st;
	return stat(path, &st) == 0 && st.st_size > 0;
}

/* The fixture's log with an archiver, 3 MiB committed and a rebase begun
 * at write, which the archiver has sealed: it waits for the log's thread. */
static struct recv_archiver *sealed_and_waiting(struct fixture *f,
						uint64_t *write)
{
	struct recv_archiver *a = with_an_archiver(f);
	static atomic_int sealed;
	atomic_store(&sealed, 0);
	recv_rotation_on_rebased(f->rot, woken, &sealed);
	commit_next(f, 3u << 20);
	*write = recv_pmem_target_write_offset(&f->t);
	assert_int_equal(recv_rotation_rebase_begin(f->rot, *write), RS_MSG_OK);
	for (int i = 0; i < 10000 && !atomic_load(&sealed); i++)
		usleep(1000);
	assert_true(atomic_load(&sealed));
	assert_true(f->t.end_sealed);
	return a;
}

/* The log's thread finishes that rebase: the 3 MiB are one archive file,
 * and the pool starts over after them. */
static void the_waiting_rebase_finishes(struct fixture *f)
{
	uint8_t status = 0xff;
	uint64_t base = 0;
	assert_true(recv_rotation_rebase_poll(f->rot, &status, &base));
	assert_int_equal(status, RS_MSG_OK);
	assert_false(f->t.end_sealed);
	assert_int_equal(base, 3u << 20);
	unsigned files;
	uint64_t bytes, at;
	recv_rotation_archived(f->rot, &files, &bytes, &at);
	assert_int_equal(files, 1);
	assert_int_equal(bytes, 3u << 20);
}

/* The log's thread may queue its log after the archiver already sealed it
 * (its queue call comes after the rebase is begun, and the archiver may
 * take the log meanwhile): that turn must leave the sealed stretch alone
 * until the log's thread has started the pool over, or the sealed
 * content would be copied again into a stretch of its own. */
static void a_turn_after_the_seal_copies_nothing(void **state)
{
	struct fixture *f = *state;
	uint64_t write;
	struct recv_archiver *a = sealed_and_waiting(f, &write);
	rotation_archiver_queue(f->rot); /* late */
	for (int i = 0; i < 200 && !stretch_started(f); i++)
		usleep(1000);
	assert_false(stretch_started(f));
	the_waiting_rebase_finishes(f);
	close_log(f);
	recv_archiver_stop(&a);
	open_log(f);
}

/* A log whose seal waits for its thread: until that thread started the
 * pool over, nothing else may change the pool (a sender that breaks the
 * protocol could ask): a replacement placed whole (which seals by a
 * rebase of its own) and a switch are refused, and the waiting rebase
 * then finishes as it would have. */
static void nothing_changes_the_pool_while_its_seal_waits(void **state)
{
	struct fixture *f = *state;
	uint64_t write;
	struct recv_archiver *a = sealed_and_waiting(f, &write);
	struct recv_generation g = {0};
	uint64_t room, base = 0;
	assert_int_equal(recv_generation_place(&g, &f->t, f->rot, 0, &room),
			 RS_MSG_BAD_REQUEST);
	assert_int_equal(recv_rotation_switch(f->rot, f->t.start, 0),
			 RS_MSG_BAD_REQUEST);
	assert_int_equal(recv_rotation_rebase(f->rot, write, &base),
			 RS_MSG_BAD_REQUEST);
	the_waiting_rebase_finishes(f);
	assert_int_equal(pool_used(f), 0);
	close_log(f);
	recv_archiver_stop(&a);
	open_log(f);
}

/* Should the committed end move while the seal waits (nothing may move
 * it: this is the last guard), the rebase is refused when it would finish:
 * the pool is not started over, so nothing committed past the seal is
 * dropped, and nothing is listed in the archive. */
static void a_seal_the_log_outgrew_is_not_finished(void **state)
{
	struct fixture *f = *state;
	uint64_t write;
	struct recv_archiver *a = sealed_and_waiting(f, &write);
	recv_pmem_target_accept(&f->t, write + 4096);
	uint8_t status = 0xff;
	uint64_t base = 0;
	assert_true(recv_rotation_rebase_poll(f->rot, &status, &base));
	assert_int_equal(status, RS_MSG_BAD_REQUEST);
	assert_false(f->t.end_sealed);
	assert_int_equal(recv_pmem_target_write_offset(&f->t), write + 4096);
	unsigned files;
	uint64_t bytes, at;
	recv_rotation_archived(f->rot, &files, &bytes, &at);
	assert_int_equal(files, 0);
	close_log(f);
	recv_archiver_stop(&a);
	open_log(f);
}

/* What the archiver had done of the others when it sealed (its thread). */
struct seal_seen {
	struct fixture *f;
	char name[OTHERS][8];
	atomic_int sealed, others_started;
};

static void seen_sealed(void *ctx)
{
	struct seal_seen *s = ctx;
	int n = 0;
	for (int i = HELD; i < OTHERS; i++)
		n += stretch_of(s->f, s->name[i]);
	atomic_store(&s->others_started, n);
	atomic_store(&s->sealed, 1);
}

/* Other logs rotate-at full, waiting for their copying, when the fixture's
 * writer asks for a rebase: its seal goes before those not started. The
 * test holds the first HELD other logs' locks, so that each of the
 * archiver's threads is in the turn of one of them, until the last two and
 * the seal are queued, then lets one thread go: it takes the seal next;
 * with one queue in turn the seal would wait for every other log's
 * chunk. */
static void a_waiting_writer_goes_before_the_copying(void **state)
{
	struct fixture *f = *state;
	struct recv_archiver *a = with_an_archiver(f);
	struct rs_error err = {0};
	struct seal_seen seen = {.f = f};
	recv_rotation_on_rebased(f->rot, seen_sealed, &seen);
	commit_next(f, 3u << 20);

	struct recv_pmem_target t[OTHERS];
	struct recv_rotation *r[OTHERS];
	for (int i = 0; i < OTHERS; i++) {
		char path[PATH_MAX];
		snprintf(seen.name[i], sizeof(seen.name[i]), "o%d", i);
		snprintf(path, sizeof(path), "%s/%s.pool", f->dir,
			 seen.name[i]);
		assert_int_equal(
		    recv_pmem_target_open(&t[i], path, POOL_SIZE, &err), 0);
		assert_int_equal(recv_rotation_open(&f->cfg, seen.name[i],
						    &t[i], a, &r[i], &err),
				 0);
		uint64_t at = recv_pmem_target_write_offset(&t[i]);
		memcpy(t[i].base + at, f->input, 3u << 20);
		struct rs_msg req = {.type = RS_MSG_COMMIT,
				     .offset = at,
				     .length = 3u << 20},
			      reply;
		assert_true(recv_commit_apply(&t[i], 0, &recv_method_gpspm,
					      &req, &reply));
	}
	for (int i = 0; i < HELD; i++) {
		pthread_mutex_lock(&r[i]->lock);
		recv_rotation_nudge(r[i]);
	}
	/* every thread in a held log's turn: none queued any more */
	for (int i = 0; i < 10000 && atomic_load(&r[HELD - 1]->queued_hint);
	     i++)
		usleep(1000);
	usleep(20000);
	for (int i = HELD; i < OTHERS; i++)
		recv_rotation_nudge(r[i]);
	uint64_t write = recv_pmem_target_write_offset(&f->t);
	assert_int_equal(recv_rotation_rebase_begin(f->rot, write), RS_MSG_OK);
	/* One thread free: after its chunk, the seal, not the queued. */
	pthread_mutex_unlock(&r[0]->lock);
	for (int i = 0; i < 10000 && !atomic_load(&seen.sealed); i++)
		usleep(1000);
	for (int i = 1; i < HELD; i++)
		pthread_mutex_unlock(&r[i]->lock);
	assert_true(atomic_load(&seen.sealed));
	assert_int_equal(atomic_load(&seen.others_started), 0);

	uint8_t status = 0xff;
	uint64_t base = 0;
	assert_true(recv_rotation_rebase_poll(f->rot, &status, &base));
	assert_int_equal(status, RS_MSG_OK);
	assert_int_equal(base, 3u << 20);
	/* The copying goes on after it, every log's. */
	for (int i = 0; i < OTHERS; i++) {
		for (int k = 0;
		     k < 10000 && atomic_load(&r[i]->copied) < (3u << 20); k++)
			usleep(1000);
		assert_int_equal(atomic_load(&r[i]->copied), 3u << 20);
		recv_rotation_close(&r[i]);
		recv_pmem_target_close(&t[i]);
	}
	close_log(f);
	recv_archiver_stop(&a);
	open_log(f);
}

/* A rebase begun on another thread, as the log's thread begins one. */
struct begun {
	struct recv_rotation *rot;
	uint64_t write;
	atomic_int status; /* -1 until it returned */
};

static void *begin_rebase(void *arg)
{
	struct begun *b = arg;
	atomic_store(&b->status, recv_rotation_rebase_begin(b->rot, b->write));
	return 0;
}

/* The archiver holds a log's lock across its I/O (a chunk's write on a
 * slow archive disk: seconds): the log's thread asking for the rebase
 * must not wait for it, or every log of that thread stalls meanwhile. */
static void asking_for_a_rebase_never_waits_for_the_archivers_io(void **state)
{
	struct fixture *f = *state;
	struct recv_archiver *a = with_an_archiver(f);
	static atomic_int sealed;
	atomic_store(&sealed, 0);
	recv_rotation_on_rebased(f->rot, woken, &sealed);
	commit_next(f, 3u << 20);
	struct begun b = {.rot = f->rot,
			  .write = recv_pmem_target_write_offset(&f->t)};
	atomic_store(&b.status, -1);
	pthread_mutex_lock(&f->rot->lock); /* the archiver's slow write */
	pthread_t th;
	assert_int_equal(pthread_create(&th, 0, begin_rebase, &b), 0);
	for (int i = 0; i < 2000 && atomic_load(&b.status) < 0; i++)
		usleep(1000);
	int status = atomic_load(&b.status);
	pthread_mutex_unlock(&f->rot->lock);
	pthread_join(th, 0);
	assert_int_equal(status, RS_MSG_OK);
	for (int i = 0; i < 10000 && !atomic_load(&sealed); i++)
		usleep(1000);
	the_waiting_rebase_finishes(f);
	close_log(f);
	recv_archiver_stop(&a);
	open_log(f);
}

/* Another log's archive is on a slow disk: one of the archiver's threads
 * is stuck in its turn (the test holds its lock). The fixture's writer
 * asks for a rebase: another thread seals it meanwhile. */
static void a_slow_archive_holds_up_only_its_own_log(void **state)
{
	struct fixture *f = *state;
	struct recv_archiver *a = with_an_archiver(f);
	struct rs_error err = {0};
	struct recv_pmem_target t;
	struct recv_rotation *slow;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/slow.pool", f->dir);
	assert_int_equal(recv_pmem_target_open(&t, path, POOL_SIZE, &err), 0);
	assert_int_equal(
	    recv_rotation_open(&f->cfg, "slow", &t, a, &slow, &err), 0);
	uint64_t at = recv_pmem_target_write_offset(&t);
	memcpy(t.base + at, f->input, 3u << 20);
	struct rs_msg req = {.type = RS_MSG_COMMIT,
			     .offset = at,
			     .length = 3u << 20},
		      reply;
	assert_true(recv_commit_apply(&t, 0, &recv_method_gpspm, &req, &reply));
	pthread_mutex_lock(&slow->lock);
	recv_rotation_nudge(slow);
	for (int i = 0; i < 10000 && atomic_load(&slow->queued_hint); i++)
		usleep(1000);
	static atomic_int sealed;
	atomic_store(&sealed, 0);
	recv_rotation_on_rebased(f->rot, woken, &sealed);
	commit_next(f, 3u << 20);
	assert_int_equal(recv_rotation_rebase_begin(
			     f->rot, recv_pmem_target_write_offset(&f->t)),
			 RS_MSG_OK);
	for (int i = 0; i < 10000 && !atomic_load(&sealed); i++)
		usleep(1000);
	int done = atomic_load(&sealed);
	pthread_mutex_unlock(&slow->lock);
	assert_true(done);
	the_waiting_rebase_finishes(f);
	recv_rotation_close(&slow);
	recv_pmem_target_close(&t);
	close_log(f);
	recv_archiver_stop(&a);
	open_log(f);
}

static void rebase_refuses_what_makes_no_sense(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 4096);
	uint64_t base = 0, write = recv_pmem_target_write_offset(&f->t);
	/* The writer's idea of the pool's end must be the pool's. */
	assert_int_equal(recv_rotation_rebase(f->rot, write - 1, &base),
			 RS_MSG_BAD_REQUEST);
	assert_int_equal(pool_used(f), 4096);
	close_log(f);
	f->cfg.dir[0] = '\0'; /* no archive: no rotation */
	open_log(f);
	assert_false(recv_rotation_enabled(f->rot));
	assert_int_equal(recv_rotation_rebase(f->rot, write, &base),
			 RS_MSG_NO_ARCHIVE);
}

/* Writes the archive file a seal would have written: [pos, +len) of the
 * input. */
static void archive_file(struct fixture *f, uint64_t pos, uint64_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/app-%020llu.log", f->dir,
		 (unsigned long long)pos);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(f->input + pos, 1, len, fp), len);
	fclose(fp);
}

static void crash_after_sealing_empties_the_pool(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 100000);
	close_log(f);
	archive_file(f, 0, 100000); /* sealed; the pool not emptied yet */
	open_log(f);
	assert_int_equal(pool_used(f), 0);
	assert_int_equal(recv_rotation_base(f->rot), 100000);
	assert_true(hash_of(f, 0, 100000) == XXH3_64bits(f->input, 100000));
}

/* --export of a pool whose rotation was cut short after its seal: the
 * pool's bytes once, from the archive, before any receiver finishes it. */
static void export_after_a_seal_cut_short_reads_each_byte_once(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 100000);
	close_log(f);
	archive_file(f, 0, 100000); /* sealed; the pool not emptied yet */
	char out[PATH_MAX];
	snprintf(out, sizeof(out), "%s/export", f->dir);
	assert_int_equal(recv_export(f->pool, f->dir, "app", out), 0);
	FILE *fp = fopen(out, "r");
	assert_non_null(fp);
	static uint8_t back[200000];
	size_t n = fread(back, 1, sizeof(back), fp);
	fclose(fp);
	assert_int_equal(n, 100000);
	assert_memory_equal(back, f->input, n);
	open_log(f); /* for the teardown */
}

static void crash_after_emptying_records_the_base(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 5000);
	close_log(f);
	archive_file(f, 0, 5000);
	/* The pool emptied, the record not written yet. */
	assert_int_equal(recv_pmem_target_open(&f->t, f->pool, 0, 0), 0);
	recv_pmem_target_commit(&f->t, f->t.start);
	recv_pmem_target_close(&f->t);
	/* --export reads it as the receiver will: the archive's 5000 */
	char out[PATH_MAX];
	snprintf(out, sizeof(out), "%s/export", f->dir);
	assert_int_equal(recv_export(f->pool, f->dir, "app", out), 0);
	struct stat st;
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_size, 5000);
	unlink(out);
	open_log(f);
	assert_int_equal(recv_rotation_base(f->rot), 5000);
	assert_int_equal(recv_rotation_end(f->rot), 5000);
}

static void archive_that_does_not_fit_is_refused(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 7000);
	close_log(f);
	archive_file(f, 0, 5000); /* neither the pool's bytes nor none */
	assert_int_equal(recv_pmem_target_open(&f->t, f->pool, 0, 0), 0);
	struct rs_error err = {0};
	assert_int_equal(
	    recv_rotation_open(&f->cfg, "app", &f->t, 0, &f->rot, &err),
	    RS_E_MALFORMED);
	assert_non_null(strstr(err.msg, "do not fit together"));
	f->cfg.max_bytes = 1u << 20; /* less than one pool */
	assert_int_equal(
	    recv_rotation_open(&f->cfg, "app", &f->t, 0, &f->rot, &err),
	    RS_E_INVAL);
	assert_non_null(strstr(err.msg, "archive-max"));
	f->cfg.max_bytes = 0;
	f->rot = 0;
	recv_pmem_target_close(&f->t);
	/* Reopened so that teardown closes something. */
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/app-%020llu.log", f->dir, 0ull);
	unlink(path);
	open_log(f);
}

/* Files in the log's archive. */
static unsigned archive_files(struct fixture *f)
{
	unsigned files;
	uint64_t bytes, at;
	recv_rotation_archived(f->rot, &files, &bytes, &at);
	return files;
}

static void forgetting_starts_the_log_over(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 3u << 20);
	uint64_t base, write = recv_pmem_target_write_offset(&f->t);
	assert_int_equal(recv_rotation_rebase(f->rot, write, &base), RS_MSG_OK);
	recv_rotation_empty(f->rot); /* --truncate=in-place */
	assert_int_equal(pool_used(f), 0);
	assert_int_equal(recv_rotation_base(f->rot), 0);
	assert_int_equal(archive_files(f), 0);
	close_log(f);
	open_log(f);
	assert_int_equal(recv_rotation_base(f->rot), 0);
}

/* The replacement's bytes: a pattern of its own. */
static void replacement(uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 17 + 3);
}

/* What the pool holds, as libpmemlog sees it, is buf. */
static void pool_is(struct fixture *f, const uint8_t *buf, uint64_t len)
{
	assert_int_equal(pool_used(f), len);
	assert_memory_equal(f->t.base + f->t.start, buf, len);
}

static void replacement_goes_beside_and_switches_in(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 1u << 20);
	uint64_t base, write = recv_pmem_target_write_offset(&f->t);
	assert_int_equal(recv_rotation_rebase(f->rot, write, &base),
			 RS_MSG_OK); /* some of the old content archived */
	commit_next(f, 300000);
	struct recv_generation g;
	uint64_t room;
	assert_int_equal(
	    recv_generation_place(&g, &f->t, f->rot, 700000, &room), RS_MSG_OK);
	/* Beside the old content, a gap of an eighth of the pool at least. */
	assert_true(g.at >= f->t.start + POOL_SIZE / 8 - 8192);
	assert_true(g.at >= recv_pmem_target_write_offset(&f->t));
	assert_int_equal(room, f->t.end - g.at);
	static uint8_t next[700000];
	replacement(next, sizeof(next));
	memcpy(f->t.base + g.at, next, sizeof(next));
	/* The old content is the log until the switch. */
	assert_int_equal(recv_rotation_end(f->rot), f->committed);
	assert_int_equal(recv_rotation_switch(f->rot, g.at, sizeof(next)),
			 RS_MSG_OK);
	pool_is(f, next, sizeof(next));
	assert_int_equal(recv_rotation_base(f->rot), 0);
	assert_int_equal(recv_rotation_content(f->rot), 1); /* another log */
	assert_int_equal(archive_files(f), 0);
	close_log(f);
	open_log(f);
	pool_is(f, next, sizeof(next));
	assert_int_equal(recv_rotation_end(f->rot), sizeof(next));
}

/* A crash after the first of three chunks moved: the next open moves the
 * rest, from the record's count. */
static void switch_cut_short_is_finished(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 300000);
	static uint8_t next[700000];
	replacement(next, sizeof(next));
	uint64_t src = f->t.start + 300000;
	memcpy(f->t.base + src, next, sizeof(next));
	memcpy(f->t.base + f->t.start, next, 300000); /* chunk 0 moved */
	struct log_state st = {
	    .seq = 9,
	    .sw = {
		.src = src, .len = sizeof(next), .chunk = 300000, .done = 1}};
	uint8_t slot[RECV_LOG_STATE_SLOT];
	unsigned i;
	log_state_encode(&st, f->t.uuid, slot, &i);
	recv_pmem_target_write_header(
	    &f->t, RECV_LOG_STATE_OFFSET + i * RECV_LOG_STATE_SLOT, slot,
	    sizeof(slot));
	close_log(f);
	open_log(f);
	pool_is(f, next, sizeof(next));
	assert_int_equal(recv_rotation_base(f->rot), 0);
}

static void replacement_without_room_is_refused_or_seals_first(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 3u << 20);
	struct recv_generation g = {0};
	uint64_t room;
	/* More than the pool: never. */
	assert_int_equal(
	    recv_generation_place(&g, &f->t, f->rot, 5u << 20, &room),
	    RS_MSG_NO_ROOM);
	assert_false(g.active);
	assert_int_equal(pool_used(f), 3u << 20);
	/* No room beside the old content: it is sealed into the archive. */
	assert_int_equal(
	    recv_generation_place(&g, &f->t, f->rot, 2u << 20, &room),
	    RS_MSG_OK);
	assert_int_equal(g.at, f->t.start);
	assert_int_equal(pool_used(f), 0);
	assert_int_equal(recv_rotation_base(f->rot), 3u << 20);
	assert_int_equal(recv_rotation_end(f->rot), 3u << 20);
	/* Without an archive it is refused, the room there named. */
	close_log(f);
	f->cfg.dir[0] = '\0';
	open_log(f);
	commit_next(f, 3u << 20);
	assert_int_equal(
	    recv_generation_place(&g, &f->t, f->rot, 2u << 20, &room),
	    RS_MSG_NO_ROOM);
	assert_true(room < (2u << 20));
}

/* rpma-recv --export: the archive's files, then the pool, by our own
 * code; a look that writes nothing. */
static void export_reads_the_archive_then_the_pool(void **state)
{
	struct fixture *f = *state;
	commit_next(f, 3u << 20);
	uint64_t base, write = recv_pmem_target_write_offset(&f->t);
	assert_int_equal(recv_rotation_rebase(f->rot, write, &base), RS_MSG_OK);
	commit_next(f, 123456);
	char out[PATH_MAX];
	snprintf(out, sizeof(out), "%s/export", f->dir);
	assert_int_equal(recv_export(f->pool, f->dir, "app", out), 0);
	FILE *fp = fopen(out, "r");
	assert_non_null(fp);
	static uint8_t back[4u << 20];
	size_t n = fread(back, 1, sizeof(back), fp);
	fclose(fp);
	assert_int_equal(n, f->committed);
	assert_memory_equal(back, f->input, n);
	/* Without the archive: the pool's bytes alone. */
	assert_int_equal(recv_export(f->pool, 0, "app", out), 0);
	fp = fopen(out, "r");
	n = fread(back, 1, sizeof(back), fp);
	fclose(fp);
	assert_int_equal(n, 123456);
	assert_memory_equal(back, f->input + (3u << 20), n);
	/* An output that cannot be written is an error. */
	unlink(out);
	assert_int_equal(mkdir(out, 0700), 0);
	assert_int_equal(recv_export(f->pool, f->dir, "app", out), RS_E_IO);
	rmdir(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(
		rebase_moves_the_pool_into_the_archive, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		the_archiver_copies_and_seals_off_the_logs_thread, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_waiting_writer_goes_before_the_copying, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_turn_after_the_seal_copies_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		nothing_changes_the_pool_while_its_seal_waits, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		a_seal_the_log_outgrew_is_not_finished, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		asking_for_a_rebase_never_waits_for_the_archivers_io, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		a_slow_archive_holds_up_only_its_own_log, setup, teardown),
	    cmocka_unit_test_setup_teardown(rebase_refuses_what_makes_no_sense,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		crash_after_sealing_empties_the_pool, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		export_after_a_seal_cut_short_reads_each_byte_once, setup,
		teardown),
	    cmocka_unit_test_setup_teardown(
		crash_after_emptying_records_the_base, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		archive_that_does_not_fit_is_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(forgetting_starts_the_log_over,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		replacement_goes_beside_and_switches_in, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		export_reads_the_archive_then_the_pool, setup, teardown),
	    cmocka_unit_test_setup_teardown(switch_cut_short_is_finished, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		replacement_without_room_is_refused_or_seals_first, setup,
		teardown),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
