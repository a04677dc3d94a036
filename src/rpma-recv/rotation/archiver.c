/* The receiver's archiver: a few threads for every log with an archive,
 * off the threads that serve the logs' commits. A log's thread queues its
 * log once the pool is rotate-at full (recv_rotation_nudge) or when its
 * writer asks for a rebase; the archiver's threads take the queued logs in
 * turn, a chunk each (a seal too, a chunk at a time), and sleep when none
 * is queued. A writer waiting for its rebase goes ahead of every log that
 * is only being copied: when a thousand pools fill at once, a seal waits
 * for one chunk, not a thousand. A log is in one thread's hands at a time;
 * an archive on a slow disk holds up the thread that writes to it, and
 * the others go on with the other logs. */
#include "rotation/archiver.h"

#include "pool/stop_at.h"
#include "rotation/internal.h"

#include "cli/log.h"
#include "error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define COPY_CHUNK (1u << 20)	 /* copied at a time, the lock held */
#define SYNC_EVERY (64ull << 20) /* the stretch made durable this often */
#define ARCHIVER_THREADS RECV_ARCHIVER_THREADS

/* Logs in turn, linked through next_queued (a log is in one at most). */
struct archive_queue {
	struct recv_rotation *head, *tail;
};

struct recv_archiver {
	pthread_t threads[ARCHIVER_THREADS];
	unsigned started; /* on demand: none while no log is queued */
	unsigned idle;	  /* threads asleep in wait_for_work */
	unsigned wakes;	  /* of them, woken and not up yet */
	pthread_mutex_t lock;
	pthread_cond_t wake;	      /* a log queued, or stop */
	pthread_cond_t done;	      /* a log's turn ended */
	struct archive_queue sealing; /* their writers wait: first */
	struct archive_queue copying; /* rotate-at full, nobody waits */
	bool stop;
};

void rotation_archiver_failed(struct recv_rotation *r, const struct rs_error *e)
{
	rs_err("log %s: %s", rotation_label(r), e->msg);
	r->failed = true; /* the writer's rebase tries again */
}

int rotation_copy_more(struct recv_rotation *r, uint64_t n,
		       struct rs_error *err)
{
	const struct recv_pmem_target *t = r->t;
	if (!archive_stretch_active(r->archive)) {
		int rc = archive_stretch_begin(r->archive, r->state.base, err);
		if (rc)
			return rc;
		r->synced = 0;
	}
	uint64_t at = t->start + archive_stretch_length(r->archive);
	int rc = archive_stretch_append(r->archive, t->base + at, n, err);
	uint64_t len = archive_stretch_length(r->archive);
	atomic_store(&r->copied, len);
	if (!rc && len - r->synced >= SYNC_EVERY) {
		rc = archive_stretch_sync(r->archive, err);
		r->synced = len;
	}
	/* The tests' first stop: bytes copied, nothing sealed (whether this
	 * thread or the writer's rebase copied them). */
	if (!rc && !r->stopped_copy) {
		r->stopped_copy = true;
		recv_stop_at("archive-copy");
	}
	return rc;
}

bool rotation_copy_due(const struct recv_rotation *r, uint64_t copied)
{
	uint64_t size = r->t->end - r->t->start, used = rotation_pool_used(r);
	return !r->failed && used * 100 >= size * r->cfg.rotate_at &&
	       copied < used;
}

/* One chunk, the lock held, once the pool is rotate-at full. True when
 * there is more to copy. */
static bool archive_some(struct recv_rotation *r)
{
	uint64_t copied = archive_stretch_length(r->archive);
	if (!rotation_copy_due(r, copied))
		return false;
	uint64_t used = rotation_pool_used(r);
	uint64_t n = used - copied < COPY_CHUNK ? used - copied : COPY_CHUNK;
	struct rs_error err = {0};
	if (rotation_copy_more(r, n, &err)) {
		rotation_archiver_failed(r, &err);
		return false;
	}
	return rotation_copy_due(r, archive_stretch_length(r->archive));
}

/* A log's turn: a step of its rebase's slow part when its writer asked
 * for one, else a chunk of its copying. True when it wants another turn. */
static bool turn(struct recv_rotation *r)
{
	pthread_mutex_lock(&r->lock);
	int seal = atomic_load(&r->seal);
	bool sealing = false, more = false;
	if (seal == ROTATION_SEAL_WANTED) {
		bool done = false;
		uint8_t status = rotation_seal_step(r, r->seal_write, &done);
		if (done) {
			r->seal_status = status;
			atomic_store(&r->seal, ROTATION_SEAL_DONE);
		}
		sealing = done;
		more = !done;
	} else if (seal == ROTATION_SEAL_NONE) {
		/* Not while a seal waits for the log's thread to start the
		 * pool over: what the pool holds is sealed already (a turn
		 * can come then: the log's queue call after its rebase
		 * begun may follow the seal). */
		more = archive_some(r);
	}
	pthread_mutex_unlock(&r->lock);
	if (sealing && r->wake_log)
		r->wake_log(r->wake_ctx);
	return more;
}

static void queue_push(struct archive_queue *q, struct recv_rotation *r)
{
	r->next_queued = 0;
	if (q->tail)
		q->tail->next_queued = r;
	else
		q->head = r;
	q->tail = r;
}

static struct recv_rotation *queue_pop(struct archive_queue *q)
{
	struct recv_rotation *r = q->head;
	if (r && !(q->head = r->next_queued))
		q->tail = 0;
	return r;
}

/* True when r was in q. */
static bool queue_remove(struct archive_queue *q, struct recv_rotation *r)
{
	struct recv_rotation *prev = 0;
	for (struct recv_rotation *p = q->head; p;
	     prev = p, p = p->next_queued) {
		if (p != r)
			continue;
		if (prev)
			prev->next_queued = r->next_queued;
		else
			q->head = r->next_queued;
		if (q->tail == r)
			q->tail = prev;
		return true;
	}
	return false;
}

static bool wants_seal(const struct recv_rotation *r)
{
	return atomic_load(&r->seal) == ROTATION_SEAL_WANTED;
}

/* Queued, or, while a thread has it, queued again when its turn ends. */
static void enqueue(struct recv_archiver *a, struct recv_rotation *r)
{
	if (r->in_turn) {
		r->again = true;
		return;
	}
	queue_push(wants_seal(r) ? &a->sealing : &a->copying, r);
	r->queued = true;
	atomic_store(&r->queued_hint, true);
}

static struct recv_rotation *dequeue(struct recv_archiver *a)
{
	struct recv_rotation *r = queue_pop(&a->sealing);
	if (!r)
		r = queue_pop(&a->copying);
	if (!r)
		return 0;
	r->queued = false;
	/* What its thread asks from now on queues it again. */
	atomic_store(&r->queued_hint, false);
	return r;
}

/* Asleep until woken for a queued log (wake_idle) or the stop; the lock
 * held. */
static void wait_for_work(struct recv_archiver *a)
{
	a->idle++;
	while (!a->wakes && !a->stop)
		pthread_cond_wait(&a->wake, &a->lock);
	if (a->wakes)
		a->wakes--;
	a->idle--;
}

/* Wakes an idle thread for a log just queued: false if none is idle. */
static bool wake_idle(struct recv_archiver *a)
{
	if (a->idle <= a->wakes)
		return false;
	a->wakes++;
	pthread_cond_signal(&a->wake);
	return true;
}

static void *archiver_main(void *arg);

/* A log was queued: an idle thread takes it, else a new one, up to
 * ARCHIVER_THREADS (beyond, the busy ones take it in turn). The lock
 * held. */
static void wake_or_start(struct recv_archiver *a)
{
	if (wake_idle(a) || a->started == ARCHIVER_THREADS || a->stop)
		return;
	int e = pthread_create(&a->threads[a->started], 0, archiver_main, a);
	if (!e)
		a->started++;
	else if (!a->started)
		rs_err("cannot start an archiver thread: %s; logs wait to be "
		       "archived until one starts",
		       strerror(e));
}

static void *archiver_main(void *arg)
{
	struct recv_archiver *a = arg;
	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		struct recv_rotation *r = dequeue(a);
		if (!r) {
			wait_for_work(a);
			continue;
		}
		r->in_turn = true;
		r->again = false;
		pthread_mutex_unlock(&a->lock);
		bool more = turn(r);
		pthread_mutex_lock(&a->lock);
		r->in_turn = false;
		/* this thread takes it again unless an idle one does */
		if ((more || r->again) && !r->queued && !r->forgotten) {
			enqueue(a, r);
			wake_idle(a);
		}
		pthread_cond_broadcast(&a->done);
	}
	pthread_mutex_unlock(&a->lock);
	return 0;
}

int recv_archiver_start(struct recv_archiver **out, struct rs_error *err)
{
	struct recv_archiver *a = calloc(1, sizeof(*a));
	if (!a)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	pthread_mutex_init(&a->lock, 0);
	pthread_cond_init(&a->wake, 0);
	pthread_cond_init(&a->done, 0);
	*out = a;
	return 0;
}

void recv_archiver_stop(struct recv_archiver **ap)
{
	struct recv_archiver *a = *ap;
	if (!a)
		return;
	if (a->started) {
		pthread_mutex_lock(&a->lock);
		a->stop = true;
		pthread_cond_broadcast(&a->wake);
		pthread_mutex_unlock(&a->lock);
		for (unsigned i = 0; i < a->started; i++)
			pthread_join(a->threads[i], 0);
	}
	pthread_cond_destroy(&a->done);
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a);
	*ap = 0;
}

void rotation_archiver_queue(struct recv_rotation *r)
{
	struct recv_archiver *a = r->archiver;
	bool seal = wants_seal(r);
	/* Queued and not yet taken: its turn will see what is asked now
	 * (a seal too, but only from the front). */
	if (atomic_load(&r->queued_hint) && !seal)
		return;
	pthread_mutex_lock(&a->lock);
	if (r->queued && seal && queue_remove(&a->copying, r))
		r->queued = false;
	if (!r->queued && !r->forgotten) {
		enqueue(a, r);
		wake_or_start(a);
	}
	pthread_mutex_unlock(&a->lock);
}

void rotation_archiver_forget(struct recv_rotation *r)
{
	struct recv_archiver *a = r->archiver;
	pthread_mutex_lock(&a->lock);
	/* A turn under way must not queue it again: it is freed next. */
	r->forgotten = true;
	if (!queue_remove(&a->sealing, r))
		queue_remove(&a->copying, r);
	r->queued = false;
	while (r->in_turn)
		pthread_cond_wait(&a->done, &a->lock);
	pthread_mutex_unlock(&a->lock);
}
