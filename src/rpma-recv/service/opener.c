#include "service/opener.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct recv_opener {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t handed; /* a log to open, or the stop */
	int fd;		       /* eventfd: a result waits */
	recv_open_fn fn;
	void *ctx;
	const struct recv_log_settings *asked; /* NULL: none handed over */
	bool done; /* asked's result is in `result` */
	bool stop;
	struct recv_opened result;
};

/* The next log handed over, or NULL once stopped. */
static const struct recv_log_settings *next_asked(struct recv_opener *o)
{
	pthread_mutex_lock(&o->lock);
	while (!o->stop && (!o->asked || o->done))
		pthread_cond_wait(&o->handed, &o->lock);
	const struct recv_log_settings *s = o->stop ? NULL : o->asked;
	pthread_mutex_unlock(&o->lock);
	return s;
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
		pthread_mutex_lock(&o->lock);
		o->result = r;
		o->done = true;
		pthread_mutex_unlock(&o->lock);
		uint64_t one = 1;
		(void)!write(o->fd, &one, sizeof(one));
	}
	return NULL;
}

int recv_opener_start(recv_open_fn fn, void *ctx, struct recv_opener **out,
		      struct rs_error *err)
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
	if (!e)
		e = pthread_create(&o->thread, NULL, run, o);
	if (e) {
		if (o->fd >= 0)
			close(o->fd);
		pthread_cond_destroy(&o->handed);
		pthread_mutex_destroy(&o->lock);
		free(o);
		return rs_error_set(err, RS_E_NOMEM, e,
				    "cannot start the thread that opens the "
				    "logs: %s",
				    strerror(e));
	}
	*out = o;
	return 0;
}

const struct recv_log_settings *recv_opener_busy_with(struct recv_opener *o)
{
	pthread_mutex_lock(&o->lock);
	const struct recv_log_settings *s = o->asked;
	pthread_mutex_unlock(&o->lock);
	return s;
}

void recv_opener_open(struct recv_opener *o, const struct recv_log_settings *s)
{
	pthread_mutex_lock(&o->lock);
	o->asked = s;
	o->done = false;
	pthread_cond_signal(&o->handed);
	pthread_mutex_unlock(&o->lock);
}

bool recv_opener_take(struct recv_opener *o, struct recv_opened *out)
{
	uint64_t n;
	(void)!read(o->fd, &n, sizeof(n));
	pthread_mutex_lock(&o->lock);
	bool done = o->done;
	if (done) {
		*out = o->result;
		o->asked = NULL;
		o->done = false;
	}
	pthread_mutex_unlock(&o->lock);
	return done;
}

int recv_opener_fd(const struct recv_opener *o)
{
	return o->fd;
}

void recv_opener_stop(struct recv_opener **p, struct recv_opened *left)
{
	struct recv_opener *o = *p;
	memset(left, 0, sizeof(*left));
	if (!o)
		return;
	pthread_mutex_lock(&o->lock);
	o->stop = true;
	pthread_cond_signal(&o->handed);
	pthread_mutex_unlock(&o->lock);
	pthread_join(o->thread, NULL);
	if (o->done)
		*left = o->result;
	close(o->fd);
	pthread_cond_destroy(&o->handed);
	pthread_mutex_destroy(&o->lock);
	free(o);
	*p = NULL;
}
