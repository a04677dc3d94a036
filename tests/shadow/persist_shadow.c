/* The persistence model of the test bed. Preloaded into rpma-recv
 * (LD_PRELOAD, with RPMA_SHADOW_DIR set), it stands between the receiver
 * and libpmem2: every range the receiver makes persistent through the
 * functions libpmem2 gives it (persist; flush, then drain; memcpy, memmove
 * and memset unless told not to flush, once drained) is copied to the
 * pool's shadow (shadow_store.h), and nothing else is. The test bed cuts
 * the PMem's power by killing the receiver and putting the pool back as its
 * shadow says: a missing flush, drain or persist, or a persist that comes
 * after the commit it should precede, loses what a real cut would lose.
 *
 * RPMA_SHADOW_SKIP=word|floor|record|data leaves one kind of persist out of
 * the shadow, as a receiver that forgot it would behave: the self-tests of
 * the cut cases (tests/e2e/crash.sh), which must fail. What the RDMA device
 * makes persistent (apm, flush) is never seen here: see docs/testing.md. */
#include "shadow_store.h"

#include "pool/offset_rule.h"
#include "proto/pool_layout.h"

#include <dlfcn.h>
#include <endian.h>
#include <fcntl.h>
#include <libpmem2.h>
#include <libpmemlog.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A mapping the model follows, with libpmem2's own functions for it. */
struct modeled_map {
	struct pmem2_map *map;
	char *path;	 /* the pool's */
	uint64_t serial; /* which mapping: an address comes back in another */
	uint8_t *base;
	size_t size;
	struct shadow shadow;
	pmem2_persist_fn persist;
	pmem2_flush_fn flush;
	pmem2_drain_fn drain;
	pmem2_memmove_fn memmove_fn;
	pmem2_memcpy_fn memcpy_fn;
	pmem2_memset_fn memset_fn;
};

#define MODELED_MAX 64
static struct modeled_map modeled[MODELED_MAX];
static pthread_rwlock_t modeled_lock = PTHREAD_RWLOCK_INITIALIZER;

static void *real_fn(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		fprintf(stderr, "persist-shadow: no %s in libpmem2\n", name);
		abort();
	}
	return f;
}

/* The followed mapping holding p, or none; under modeled_lock. */
static struct modeled_map *modeled_at(const void *p)
{
	const uint8_t *b = p;
	for (int i = 0; i < MODELED_MAX; i++)
		if (modeled[i].map && b >= modeled[i].base &&
		    b < modeled[i].base + modeled[i].size)
			return &modeled[i];
	return 0;
}

static struct modeled_map *modeled_of(const struct pmem2_map *map)
{
	for (int i = 0; i < MODELED_MAX; i++)
		if (map && modeled[i].map == map)
			return &modeled[i];
	return 0;
}

/* --- the persists left out (RPMA_SHADOW_SKIP) */

/* The file range [*from, *to) of m's pool whose persists are left out. */
static int skipped_range(const struct modeled_map *m, uint64_t *from,
			 uint64_t *to)
{
	static const struct {
		const char *name;
		uint64_t from, to;
	} kinds[] = {
	    {"word", RS_LOG_WRITE_OFFSET, RS_LOG_WRITE_OFFSET + 8},
	    {"record", RECV_LOG_STATE_OFFSET, RECV_LOG_STATE_END},
	    {"floor", RECV_OFFSET_FLOOR_AT,
	     RECV_OFFSET_FLOOR_AT + RECV_OFFSET_FLOOR_SIZE},
	    {"data", 0, 0}, /* from the data range's start on */
	};
	const char *skip = getenv("RPMA_SHADOW_SKIP");
	for (size_t i = 0; skip && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(skip, kinds[i].name))
			continue;
		*from = kinds[i].from, *to = kinds[i].to;
		if (!*to) {
			uint64_t start;
			memcpy(&start, m->base + RS_LOG_START_OFFSET, 8);
			*from = le64toh(start), *to = m->size;
		}
		return *from < *to;
	}
	return 0;
}

static void say_skipped_once(void)
{
	static atomic_flag said = ATOMIC_FLAG_INIT;
	if (!atomic_flag_test_and_set(&said))
		fprintf(stderr,
			"persist-shadow: persists of the %s left out of the "
			"shadow (RPMA_SHADOW_SKIP)\n",
			getenv("RPMA_SHADOW_SKIP"));
}

static void copy_span(const struct modeled_map *m, uint64_t from, uint64_t to)
{
	shadow_store_copy(&m->shadow, m->base, from, to);
}

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* RPMA_SHADOW_DEVICE: a one-sided writer's data reaches the PMem through
 * the RDMA device (its flush or read after the write), which the model
 * cannot see. It is taken as persistent once the receiver makes the write
 * offset covering it persistent ([from, to) spans the word): the writer
 * had to make it persistent before it stored that offset. */
static void device_data_kept(const struct modeled_map *m, uint64_t from,
			     uint64_t to)
{
	const char *device = getenv("RPMA_SHADOW_DEVICE");
	if (!device || !*device || to <= RS_LOG_WRITE_OFFSET ||
	    from >= RS_LOG_WRITE_OFFSET + 8 || m->size < RS_LOG_HDR_END)
		return;
	uint64_t start = load_le64(m->base + RS_LOG_START_OFFSET);
	uint64_t now = load_le64(m->base + RS_LOG_WRITE_OFFSET);
	uint64_t before = load_le64(m->shadow.img + RS_LOG_WRITE_OFFSET);
	if (start < RS_LOG_HDR_END || start > m->size || now > m->size)
		return;
	copy_span(m, before >= start && before <= now ? before : start, now);
}

/* [p, +n) of m is persistent now: into the shadow, but for what is left
 * out. */
static void shadow_keep(const struct modeled_map *m, const void *p, size_t n)
{
	uint64_t from = (uint64_t)((const uint8_t *)p - m->base);
	uint64_t to = from + n > m->size ? m->size : from + n;
	uint64_t sf, st;
	device_data_kept(m, from, to);
	if (!skipped_range(m, &sf, &st) || to <= sf || st <= from) {
		copy_span(m, from, to);
		return;
	}
	say_skipped_once();
	copy_span(m, from, sf > from ? sf : from);
	copy_span(m, st < to ? st : to, to);
}

/* --- flushed, not yet drained: this thread's ranges */

static __thread struct pending_range {
	const void *p;
	size_t n;
	uint64_t serial; /* of the mapping it was flushed in */
} * pending;
static __thread size_t pending_count, pending_cap;

static void pending_add(const struct modeled_map *m, const void *p, size_t n)
{
	if (pending_count == pending_cap) {
		size_t cap = pending_cap ? 2 * pending_cap : 64;
		struct pending_range *grown =
		    realloc(pending, cap * sizeof(*pending));
		if (!grown)
			abort();
		pending = grown, pending_cap = cap;
	}
	pending[pending_count++] = (struct pending_range){p, n, m->serial};
}

/* --- the functions the receiver is given */

static void model_persist(const void *p, size_t n)
{
	pthread_rwlock_rdlock(&modeled_lock);
	struct modeled_map *m = modeled_at(p);
	if (m) {
		m->persist(p, n);
		shadow_keep(m, p, n);
	}
	pthread_rwlock_unlock(&modeled_lock);
}

static void model_flush(const void *p, size_t n)
{
	pthread_rwlock_rdlock(&modeled_lock);
	struct modeled_map *m = modeled_at(p);
	if (m) {
		m->flush(p, n);
		pending_add(m, p, n);
	}
	pthread_rwlock_unlock(&modeled_lock);
}

static void model_drain(void)
{
	pthread_rwlock_rdlock(&modeled_lock);
	/* a fence, the same for every mapping of one kind */
	for (int i = 0; i < MODELED_MAX; i++)
		if (modeled[i].map) {
			modeled[i].drain();
			break;
		}
	for (size_t i = 0; i < pending_count; i++) {
		struct modeled_map *m = modeled_at(pending[i].p);
		if (m && m->serial == pending[i].serial)
			shadow_keep(m, pending[i].p, pending[i].n);
	}
	pending_count = 0;
	pthread_rwlock_unlock(&modeled_lock);
}

/* After a store of [p, +n) with libpmem2's flags: kept, pending or not. */
static void model_stored(const struct modeled_map *m, const void *p, size_t n,
			 unsigned flags)
{
	if (flags & PMEM2_F_MEM_NOFLUSH)
		return;
	if (flags & PMEM2_F_MEM_NODRAIN)
		pending_add(m, p, n);
	else
		shadow_keep(m, p, n);
}

enum store_kind { STORE_MOVE, STORE_COPY, STORE_SET };

/* A store through m's libpmem2 memmove, memcpy or memset, then the model. */
static void *model_store(enum store_kind kind, void *dst, const void *src,
			 int c, size_t n, unsigned flags)
{
	pthread_rwlock_rdlock(&modeled_lock);
	struct modeled_map *m = modeled_at(dst);
	if (m) {
		if (kind == STORE_SET)
			m->memset_fn(dst, c, n, flags);
		else if (kind == STORE_COPY)
			m->memcpy_fn(dst, src, n, flags);
		else
			m->memmove_fn(dst, src, n, flags);
		model_stored(m, dst, n, flags);
	}
	pthread_rwlock_unlock(&modeled_lock);
	return dst;
}

static void *model_memmove(void *dst, const void *src, size_t n, unsigned flags)
{
	return model_store(STORE_MOVE, dst, src, 0, n, flags);
}

static void *model_memcpy(void *dst, const void *src, size_t n, unsigned flags)
{
	return model_store(STORE_COPY, dst, src, 0, n, flags);
}

static void *model_memset(void *dst, int c, size_t n, unsigned flags)
{
	return model_store(STORE_SET, dst, 0, c, n, flags);
}

/* --- libpmem2's entry points, interposed */

/* The path of src when it is open for writing (a read-only look at a pool
 * persists nothing); 0 otherwise. */
static int writable_path(const struct pmem2_source *src, char *out, size_t cap)
{
	int fd;
	if (pmem2_source_get_fd(src, &fd) ||
	    (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY)
		return 0;
	char link[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t len = readlink(link, out, cap - 1);
	if (len <= 0)
		return 0;
	out[len] = 0;
	return 1;
}

static void follow(struct pmem2_map *map, const struct pmem2_source *src)
{
	const char *dir = getenv("RPMA_SHADOW_DIR");
	char path[4096];
	if (!dir || !*dir || !writable_path(src, path, sizeof(path)))
		return;
	struct modeled_map m = {
	    .map = map,
	    .path = strdup(path),
	    .base = pmem2_map_get_address(map),
	    .size = pmem2_map_get_size(map),
	    .persist = ((pmem2_persist_fn(*)(struct pmem2_map *))real_fn(
		"pmem2_get_persist_fn"))(map),
	    .flush = ((pmem2_flush_fn(*)(struct pmem2_map *))real_fn(
		"pmem2_get_flush_fn"))(map),
	    .drain = ((pmem2_drain_fn(*)(struct pmem2_map *))real_fn(
		"pmem2_get_drain_fn"))(map),
	    .memmove_fn = ((pmem2_memmove_fn(*)(struct pmem2_map *))real_fn(
		"pmem2_get_memmove_fn"))(map),
	    .memcpy_fn = ((pmem2_memcpy_fn(*)(struct pmem2_map *))real_fn(
		"pmem2_get_memcpy_fn"))(map),
	    .memset_fn = ((pmem2_memset_fn(*)(struct pmem2_map *))real_fn(
		"pmem2_get_memset_fn"))(map),
	};
	if (shadow_store_open(dir, path, m.base, m.size, &m.shadow))
		abort(); /* a model that cannot follow must not pass */
	pthread_rwlock_wrlock(&modeled_lock);
	struct modeled_map *slot = 0;
	for (int i = 0; !slot && i < MODELED_MAX; i++)
		if (!modeled[i].map)
			slot = &modeled[i];
	if (!slot)
		abort();
	static uint64_t serials;
	m.serial = ++serials;
	*slot = m;
	pthread_rwlock_unlock(&modeled_lock);
}

int pmem2_map_new(struct pmem2_map **map, const struct pmem2_config *cfg,
		  const struct pmem2_source *src)
{
	int (*real)(struct pmem2_map **, const struct pmem2_config *,
		    const struct pmem2_source *) = real_fn("pmem2_map_new");
	int ret = real(map, cfg, src);
	if (!ret)
		follow(*map, src);
	return ret;
}

int pmem2_map_delete(struct pmem2_map **map)
{
	int (*real)(struct pmem2_map **) = real_fn("pmem2_map_delete");
	pthread_rwlock_wrlock(&modeled_lock);
	struct modeled_map *m = modeled_of(*map);
	if (m) {
		shadow_store_close(&m->shadow);
		free(m->path);
		*m = (struct modeled_map){0};
	}
	pthread_rwlock_unlock(&modeled_lock);
	return real(map);
}

/* A followed mapping's function is the model's; any other's, libpmem2's. */
#define MODEL_GETTER(type, getter, model)                                      \
	type getter(struct pmem2_map *map)                                     \
	{                                                                      \
		pthread_rwlock_rdlock(&modeled_lock);                          \
		int followed = modeled_of(map) != 0;                           \
		pthread_rwlock_unlock(&modeled_lock);                          \
		if (followed)                                                  \
			return model;                                          \
		return ((type(*)(struct pmem2_map *))real_fn(#getter))(map);   \
	}

MODEL_GETTER(pmem2_persist_fn, pmem2_get_persist_fn, model_persist)
MODEL_GETTER(pmem2_flush_fn, pmem2_get_flush_fn, model_flush)
MODEL_GETTER(pmem2_drain_fn, pmem2_get_drain_fn, model_drain)
MODEL_GETTER(pmem2_memmove_fn, pmem2_get_memmove_fn, model_memmove)
MODEL_GETTER(pmem2_memcpy_fn, pmem2_get_memcpy_fn, model_memcpy)
MODEL_GETTER(pmem2_memset_fn, pmem2_get_memset_fn, model_memset)

/* libpmemlog writes a pool through a mapping of its own, with libpmem: the
 * header when it creates the pool, its checks when it opens it. What it
 * wrote counts as persistent once it closes the pool (it persists its
 * header itself), so a pool the receiver mapped before (a device-DAX is
 * mapped first, then made a pool) has its shadow taken again then. */
static __thread char pmdk_path[4096];

static void pmdk_path_note(const char *path)
{
	if (!realpath(path, pmdk_path))
		snprintf(pmdk_path, sizeof(pmdk_path), "%s", path);
}

PMEMlogpool *pmemlog_create(const char *path, size_t poolsize, mode_t mode)
{
	PMEMlogpool *(*real)(const char *, size_t, mode_t) =
	    real_fn("pmemlog_create");
	PMEMlogpool *p = real(path, poolsize, mode);
	if (p)
		pmdk_path_note(path);
	return p;
}

PMEMlogpool *pmemlog_open(const char *path)
{
	PMEMlogpool *(*real)(const char *) = real_fn("pmemlog_open");
	PMEMlogpool *p = real(path);
	if (p)
		pmdk_path_note(path);
	return p;
}

void pmemlog_close(PMEMlogpool *plp)
{
	void (*real)(PMEMlogpool *) = real_fn("pmemlog_close");
	real(plp);
	pthread_rwlock_wrlock(&modeled_lock);
	for (int i = 0; i < MODELED_MAX; i++)
		if (modeled[i].map && !strcmp(modeled[i].path, pmdk_path))
			shadow_store_copy(&modeled[i].shadow, modeled[i].base,
					  0, modeled[i].size);
	pthread_rwlock_unlock(&modeled_lock);
	pmdk_path[0] = 0;
}
