/* The service's threads and their loop: turns for the logs whose
 * descriptors spoke (and again while they find work), timers when due,
 * spinning when a completion is due soon or --busy-poll asks, else one
 * epoll_wait over every log the thread serves. */
#include "log/threads.h"

#include "cli/log.h"
#include "cli/stall.h"
#include "error.h"
#include "log/worker_run.h"
#include "metrics/clock.h"
#include "rdma/spin.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define RECV_THREAD_EVENTS 64
/* The longest sleep when no timer is due sooner: what else needs the
 * thread (a log given, a log retired, stop) writes an eventfd it waits on. */
#define RECV_THREAD_WAIT_MS 1000
/* How long a round of turns goes before it looks for new requests. */
#define RECV_THREAD_LOOK_NS (20 * 1000000ull)

/* What a log's descriptor carries in epoll: its log, and whether it is
 * its inbox (a request waits) or a session's. */
struct recv_slot_tag {
	struct recv_slot *slot;
	bool inbox;
};

/* A log as its thread holds it. */
struct recv_slot {
	struct recv_slot *next;	      /* the thread's logs, or pending */
	struct recv_slot *next_ready; /* in the ready list */
	struct recv_slot *next_asked; /* in the asked list */
	struct recv_log_worker *w;
	struct recv_slot_tag tag[2]; /* its sessions', its inbox's */
	bool ready;
	bool asked; /* a request waits in its inbox */
};

struct recv_thread {
	pthread_t thread;
	bool started;
	bool busy_poll;
	int epfd;
	int wake_fd; /* an eventfd: attaches, stop */
	pthread_mutex_t lock;
	struct recv_slot *pending; /* given, not yet taken (under lock) */
	struct recv_slot *slots;   /* the logs it serves */
	struct recv_slot *ready;   /* those to give a turn now */
	struct recv_slot *asked;   /* those whose requests go first */
	atomic_uint nlogs;
	atomic_bool stop;
	uint64_t timers_due_ns;	     /* the soonest of its logs' timers */
	struct rs_spin spin;	     /* how long it waits for work */
	struct rs_stall stall;	     /* how long it could not run */
	uint64_t idle_since_ns;	     /* when it last found none, or 0 */
	struct recv_slot *last_busy; /* the log that last had work */
};

struct recv_threads {
	unsigned n;
	struct recv_thread t[];
};

unsigned recv_threads_default(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

static void mark_ready(struct recv_thread *t, struct recv_slot *s)
{
	if (s->ready)
		return;
	s->ready = true;
	s->next_ready = t->ready;
	t->ready = s;
}

static void mark_asked(struct recv_thread *t, struct recv_slot *s)
{
	mark_ready(t, s);
	if (s->asked)
		return;
	s->asked = true;
	s->next_asked = t->asked;
	t->asked = s;
}

/* Requests first, whatever else the logs have to do: a sender waits for
 * its answer (and the service answers it as busy if it waits too long). */
static void admit_asked(struct recv_thread *t)
{
	struct recv_slot *s = t->asked;
	t->asked = 0;
	for (; s; s = s->next_asked) {
		s->asked = false;
		if (!recv_log_worker_over(s->w))
			recv_log_worker_admit(s->w);
	}
}

/* The logs the service gave since the last look. */
static void take_pending(struct recv_thread *t)
{
	uint64_t n;
	if (read(t->wake_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		rs_err("worker thread: cannot read its wake-up: %s",
		       strerror(errno));
	pthread_mutex_lock(&t->lock);
	struct recv_slot *s = t->pending;
	t->pending = 0;
	pthread_mutex_unlock(&t->lock);
	while (s) {
		struct recv_slot *next = s->next;
		s->tag[0] = (struct recv_slot_tag){.slot = s};
		s->tag[1] = (struct recv_slot_tag){.slot = s, .inbox = true};
		recv_log_worker_attach(s->w, t->epfd, &s->tag[0], &s->tag[1],
				       &t->stall);
		s->next = t->slots;
		t->slots = s;
		t->timers_due_ns = 0;
		mark_ready(t, s);
		s = next;
	}
}

/* Lets go of an over log: it is finished and never touched again. */
static void let_go(struct recv_thread *t, struct recv_slot *s)
{
	for (struct recv_slot **p = &t->slots; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			break;
		}
	}
	if (t->last_busy == s)
		t->last_busy = 0;
	for (struct recv_slot **p = &t->asked; *p; p = &(*p)->next_asked) {
		if (*p == s) {
			*p = s->next_asked;
			break;
		}
	}
	atomic_fetch_sub(&t->nlogs, 1);
	struct recv_log_worker *w = s->w;
	free(s);
	recv_log_worker_finish(w);
}

static void wait_for_events(struct recv_thread *t, int timeout_ms);

/* A turn for each ready log; one that found work stays ready, one that is
 * over is let go of. True when any found work. Every RECV_THREAD_LOOK_NS
 * it looks up for requests that came meanwhile, and takes them first. */
static bool run_ready(struct recv_thread *t, uint64_t now)
{
	struct recv_slot *s = t->ready;
	bool busy = false;
	uint64_t looked = now;
	t->ready = 0;
	while (s) {
		if (recv_now_ns() - looked > RECV_THREAD_LOOK_NS) {
			wait_for_events(t, 0);
			admit_asked(t);
			looked = recv_now_ns();
		}
		struct recv_slot *next = s->next_ready;
		s->ready = false;
		/* Stopped: what waits in its inbox is refused, not admitted. */
		bool worked = !recv_log_worker_over(s->w) &&
			      recv_log_worker_turn(s->w, now);
		uint64_t due = recv_log_worker_timers_due(s->w);
		if (due < t->timers_due_ns)
			t->timers_due_ns = due;
		if (recv_log_worker_over(s->w)) {
			let_go(t, s);
		} else if (worked) {
			busy = true;
			t->last_busy = s;
			mark_ready(t, s);
		}
		s = next;
	}
	return busy;
}

/* Every log's timers, when the soonest is due; logs that are over (and
 * not waiting for a turn) are let go of. */
static void run_timers(struct recv_thread *t, uint64_t now)
{
	if (now < t->timers_due_ns)
		return;
	uint64_t soonest = now + RECV_THREAD_WAIT_MS * 1000000ull;
	for (struct recv_slot *s = t->slots, *next; s; s = next) {
		next = s->next;
		uint64_t due = recv_log_worker_timers(s->w, now);
		if (!s->ready && recv_log_worker_over(s->w)) {
			let_go(t, s);
			continue;
		}
		if (due < soonest)
			soonest = due;
	}
	t->timers_due_ns = soonest;
}

/* --busy-poll: one look at the completion queues of the logs that spin.
 * True when some log spins (the thread does not sleep then). */
static bool busy_poll(struct recv_thread *t)
{
	bool spins = false;
	for (struct recv_slot *s = t->slots; s; s = s->next) {
		if (!recv_log_worker_spins(s->w))
			continue;
		spins = true;
		if (recv_log_worker_poll(s->w))
			mark_ready(t, s);
	}
	return spins;
}

/* Adaptive waiting on the log that last had work: while its next request
 * is due soon (recent waits were short), look at its completion queues
 * without sleeping, as a wake-up can cost more than the round trip. */
static bool spin_for_completion(struct recv_thread *t)
{
	struct recv_slot *s = t->last_busy;
	if (!s || !recv_log_worker_serving(s->w))
		return false;
	uint64_t until = rs_spin_until(&t->spin, t->idle_since_ns);
	while (recv_now_ns() < until) {
		if (recv_log_worker_poll(s->w)) {
			mark_ready(t, s);
			return true;
		}
	}
	return false;
}

/* Waits for any descriptor of its logs, or its wake-up, at most until the
 * next timer (0: look and go on). */
static void wait_for_events(struct recv_thread *t, int timeout_ms)
{
	struct epoll_event ev[RECV_THREAD_EVENTS];
	/* a wait that ends late is time its sessions' senders are not
	 * judged by (sender/session.c) */
	rs_stall_waits(&t->stall, recv_now_ns(),
		       (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) *
			   1000000ull);
	int n = epoll_wait(t->epfd, ev, RECV_THREAD_EVENTS, timeout_ms);
	rs_stall_woke(&t->stall, recv_now_ns());
	for (int i = 0; i < n; i++) {
		struct recv_slot_tag *tag = ev[i].data.ptr;
		if (!tag)
			take_pending(t);
		else if (tag->inbox)
			mark_asked(t, tag->slot);
		else
			mark_ready(t, tag->slot);
	}
}

static int timeout_ms(const struct recv_thread *t)
{
	uint64_t now = recv_now_ns();
	if (t->timers_due_ns <= now)
		return 0;
	uint64_t ms = (t->timers_due_ns - now + 999999) / 1000000;
	return ms < RECV_THREAD_WAIT_MS ? (int)ms : RECV_THREAD_WAIT_MS;
}

/* Work came: the wait before it teaches the spinning how long to spin. */
static void note_work(struct recv_thread *t)
{
	if (t->idle_since_ns)
		rs_spin_observe(&t->spin, recv_now_ns() - t->idle_since_ns);
	t->idle_since_ns = 0;
}

static void step(struct recv_thread *t)
{
	admit_asked(t);
	uint64_t now = recv_now_ns();
	bool busy = run_ready(t, now);
	run_timers(t, now);
	if (busy) {
		note_work(t);
		/* The other logs' news too: a log that always finds work must
		 * not keep the thread from looking at its neighbours. */
		wait_for_events(t, 0);
		return;
	}
	if (!t->idle_since_ns)
		t->idle_since_ns = now;
	if (t->busy_poll && busy_poll(t))
		wait_for_events(t, 0);
	else if (spin_for_completion(t))
		note_work(t);
	else
		wait_for_events(t, timeout_ms(t));
}

static void *thread_main(void *arg)
{
	struct recv_thread *t = arg;
	while (!atomic_load(&t->stop))
		step(t);
	take_pending(t);
	while (t->slots) /* none should be left: the service stops them */
		let_go(t, t->slots);
	return 0;
}

static int thread_init(struct recv_thread *t, bool busy_poll)
{
	t->busy_poll = busy_poll;
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	t->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&t->lock, 0);
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = 0};
	if (t->epfd < 0 || t->wake_fd < 0 ||
	    epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->wake_fd, &ev))
		return -1;
	t->started = !pthread_create(&t->thread, 0, thread_main, t);
	return t->started ? 0 : -1;
}

static void thread_fini(struct recv_thread *t)
{
	if (t->started) {
		atomic_store(&t->stop, true);
		uint64_t one = 1;
		(void)!write(t->wake_fd, &one, sizeof(one));
		pthread_join(t->thread, 0);
	}
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->wake_fd >= 0)
		close(t->wake_fd);
	pthread_mutex_destroy(&t->lock);
}

int recv_threads_start(unsigned n, bool busy_poll, struct recv_threads **out,
		       struct rs_error *err)
{
	struct recv_threads *all =
	    calloc(1, sizeof(*all) + n * sizeof(all->t[0]));
	if (!all)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++) {
		all->t[i].epfd = all->t[i].wake_fd = -1;
		all->n = i + 1;
		if (thread_init(&all->t[i], busy_poll)) {
			int e = errno;
			recv_threads_stop(&all);
			return rs_error_set(
			    err, RS_E_NOMEM, e,
			    "cannot start %u worker threads: %s", n,
			    strerror(e));
		}
	}
	*out = all;
	return 0;
}

int recv_threads_attach(struct recv_threads *all, struct recv_log_worker *w)
{
	struct recv_thread *t = &all->t[0];
	for (unsigned i = 1; i < all->n; i++)
		if (atomic_load(&all->t[i].nlogs) < atomic_load(&t->nlogs))
			t = &all->t[i];
	struct recv_slot *s = calloc(1, sizeof(*s));
	if (!s)
		return RS_E_NOMEM;
	s->w = w;
	atomic_fetch_add(&t->nlogs, 1);
	pthread_mutex_lock(&t->lock);
	s->next = t->pending;
	t->pending = s;
	pthread_mutex_unlock(&t->lock);
	uint64_t one = 1;
	(void)!write(t->wake_fd, &one, sizeof(one));
	return 0;
}

unsigned recv_threads_count(const struct recv_threads *all)
{
	return all->n;
}

void recv_threads_stop(struct recv_threads **p)
{
	struct recv_threads *all = *p;
	if (!all)
		return;
	for (unsigned i = 0; i < all->n; i++)
		thread_fini(&all->t[i]);
	free(all);
	*p = 0;
}
