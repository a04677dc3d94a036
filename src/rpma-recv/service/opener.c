#include "service/opener.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* A log handed over, opening or waiting for a thread. */
struct handed {
	const struct recv_log_settings *settings;
	bool opening;
};

struct recv_opener {
	pthread_t threads[RECV_OPENER_THREADS_MAX];
	unsigned nthreads;
	pthread_mutex_t lock;
	pthread_cond_t handed; /* a log to open, or the stop */
	int fd;		       /* eventfd: a result waits */
	recv_open_fn fn;
	void *ctx;
	/* handed over and not opened yet, oldest first */
	struct handed asked[RECV_OPENER_DEPTH_MAX];
	unsigned nasked;
	/* opened (or failed), not taken yet, oldest first */
	struct recv_opened results[RECV_OPENER_DEPTH_MAX];
	unsigned nresults;
	bool stop;
};

/* The oldest log no thread opens yet, or NULL. */
static struct handed *waiting(struct recv_opener *o)
{
	for (unsigned i = 0; i < o->nasked; i++)
		if (!o->asked[i].opening)
			return &o->asked[i];
	return NULL;
}

/* The next log to open, taken by this thread, or NULL once stopped. */
static const struct recv_log_settings *next_asked(struct recv_opener *o)
{
	pthread_mutex_lock(&o->lock);
	struct handed *h = NULL;
	while (!o->stop && !(h = waiting(o)))
		pthread_cond_wait(&o->handed, &o->lock);
	const struct recv_log_settings *s = NULL;
	if (!o->stop) {
		h->opening = true;
		s = h->settings;
	}
	pthread_mutex_unlock(&o->lock);
	return s;
}

/* The open of s ended with r: a result waits, the thread goes on. */
static void finished(struct recv_opener *o, const struct recv_opened *r)
{
	pthread_mutex_lock(&o->lock);
	o->results[o->nresults++] = *r;
	unsigned i = 0;
	while (i < o->nasked && o->asked[i].settings != r->settings)
		i++;
	o->nasked--;
	memmove(o->asked + i, o->asked + i + 1,
		(o->nasked - i) * sizeof(o->asked[0]));
	pthread_mutex_unlock(&o->lock);
	uint64_t one = 1;
	(void)!write(o->fd, &one, sizeof(one));
}

static void *run(void *arg)
{
	struct recv_opener *o = arg;
	const struct recv_log_settings *s;
	while ((s = next_asked(o))) {
		struct recv_opened r = {.settings = s};
		r.rc = o->fn(o->ctx, s, &r.worker, &r.err);
		if (r.rc)
			r.worker = NULL;
		finished(o, &r);
	}
	return NULL;
}

/* Stops and joins the threads started (the lock held by none). */
static void join_all(struct recv_opener *o)
{
	pthread_mutex_lock(&o->lock);
	o->stop = true;
	pthread_cond_broadcast(&o->handed);
	pthread_mutex_unlock(&o->lock);
	for (unsigned i = 0; i < o->nthreads; i++)
		pthread_join(o->threads[i], NULL);
}

static void opener_free(struct recv_opener *o)
{
	if (o->fd >= 0)
		close(o->fd);
	pthread_cond_destroy(&o->handed);
	pthread_mutex_destroy(&o->lock);
	free(o);
}

int recv_opener_start(recv_open_fn fn, void *ctx, unsigned nthreads,
		      struct recv_opener **out, struct rs_error *err)
{
	struct recv_opener *o = calloc(1, sizeof(*o));
	if (!o)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	o->fn = fn;
	o->ctx = ctx;
	o->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	int e = o->fd < 0 ? errno : 0;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->handed, NULL);
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > RECV_OPENER_THREADS_MAX)
		nthreads = RECV_OPENER_THREADS_MAX;
	while (!e && o->nthreads < nthreads &&
	       !(e = pthread_create(&o->threads[o->nthreads], NULL, run, o)))
		o->nthreads++;
	if (e) {
		join_all(o);
		opener_free(o);
		return rs_error_set(err, RS_E_NOMEM, e,
				    "cannot start the threads that open the "
				    "logs: %s",
				    strerror(e));
	}
	*out = o;
	return 0;
}

unsigned recv_opener_depth(const struct recv_opener *o)
{
	return 2 * o->nthreads;
}

const struct recv_log_settings *recv_opener_busy_with(struct recv_opener *o)
{
	pthread_mutex_lock(&o->lock);
	const struct recv_log_settings *s =
	    o->nasked ? o->asked[0].settings : NULL;
	pthread_mutex_unlock(&o->lock);
	return s;
}

unsigned recv_opener_in_hand(struct recv_opener *o)
{
	pthread_mutex_lock(&o->lock);
	unsigned n = o->nasked + o->nresults;
	pthread_mutex_unlock(&o->lock);
	return n;
}

static bool named(const struct recv_log_settings *s, const char *name)
{
	return !name[0] || !strcmp(s->name, name);
}

bool recv_opener_opening(struct recv_opener *o, const char *name)
{
	bool opening = false;
	pthread_mutex_lock(&o->lock);
	for (unsigned i = 0; i < o->nasked && !opening; i++)
		opening =
		    o->asked[i].opening && named(o->asked[i].settings, name);
	pthread_mutex_unlock(&o->lock);
	return opening;
}

bool recv_opener_holds(struct recv_opener *o, const char *name)
{
	bool holds = false;
	pthread_mutex_lock(&o->lock);
	for (unsigned i = 0; i < o->nasked && !holds; i++)
		holds = named(o->asked[i].settings, name);
	for (unsigned i = 0; i < o->nresults && !holds; i++)
		holds = named(o->results[i].settings, name);
	pthread_mutex_unlock(&o->lock);
	return holds;
}

void recv_opener_open(struct recv_opener *o, const struct recv_log_settings *s)
{
	pthread_mutex_lock(&o->lock);
	if (o->nasked + o->nresults < recv_opener_depth(o)) {
		o->asked[o->nasked++] = (struct handed){.settings = s};
		pthread_cond_signal(&o->handed);
	}
	pthread_mutex_unlock(&o->lock);
}

bool recv_opener_take(struct recv_opener *o, struct recv_opened *out)
{
	uint64_t n;
	(void)!read(o->fd, &n, sizeof(n));
	pthread_mutex_lock(&o->lock);
	bool done = o->nresults > 0;
	if (done) {
		*out = o->results[0];
		o->nresults--;
		memmove(o->results, o->results + 1,
			o->nresults * sizeof(o->results[0]));
	}
	pthread_mutex_unlock(&o->lock);
	return done;
}

int recv_opener_fd(const struct recv_opener *o)
{
	return o->fd;
}

unsigned recv_opener_stop(struct recv_opener **p,
			  struct recv_opened left[RECV_OPENER_DEPTH_MAX])
{
	struct recv_opener *o = *p;
	if (!o)
		return 0;
	join_all(o);
	unsigned n = o->nresults;
	memcpy(left, o->results, n * sizeof(o->results[0]));
	opener_free(o);
	*p = NULL;
	return n;
}
