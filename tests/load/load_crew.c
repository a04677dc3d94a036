#include "load_crew.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum crew_job { CREW_CONNECT, CREW_SERVE, CREW_FINISH };

struct crew_member {
	struct load_crew *crew;
	struct load_fleet *lf;
	unsigned first, sessions; /* its share of the load */
	pthread_t thread;
	bool started;
	unsigned count;		 /* the job's */
	struct send_stats stats; /* latencies since load_crew_take_stats */
};

struct load_crew {
	enum crew_job job;
	unsigned ms;
	pthread_mutex_t lock;
	pthread_cond_t done;
	unsigned running; /* threads not done with the job (under lock) */
	unsigned n;
	struct crew_member m[];
};

struct load_crew *load_crew_new(const struct load_fleet_config *cfg,
				unsigned threads)
{
	struct load_crew *c = calloc(1, sizeof(*c) + threads * sizeof(c->m[0]));
	if (!c)
		return 0;
	pthread_mutex_init(&c->lock, 0);
	pthread_cond_init(&c->done, 0);
	c->n = threads;
	for (unsigned k = 0; k < threads; k++) {
		struct crew_member *m = &c->m[k];
		struct load_fleet_config share = *cfg;
		share.first = (unsigned)((uint64_t)k * cfg->sessions / threads);
		share.sessions =
		    (unsigned)((uint64_t)(k + 1) * cfg->sessions / threads) -
		    share.first;
		*m = (struct crew_member){.crew = c,
					  .first = share.first,
					  .sessions = share.sessions};
		m->lf = load_fleet_new(&share);
		if (!m->lf) {
			load_crew_delete(c);
			return 0;
		}
	}
	return c;
}

void load_crew_delete(struct load_crew *c)
{
	if (!c)
		return;
	for (unsigned k = 0; k < c->n; k++)
		load_fleet_delete(c->m[k].lf);
	pthread_cond_destroy(&c->done);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int load_crew_connect_first(struct load_crew *c)
{
	return load_fleet_connect(c->m[0].lf, 0);
}

static unsigned connect_share(struct crew_member *m)
{
	unsigned ok = 0;
	for (unsigned i = m->first ? 0 : 1; i < m->sessions; i++) {
		ok += load_fleet_connect(m->lf, i) == 0;
		load_fleet_serve(m->lf, 0);
	}
	return ok;
}

static void *member_main(void *arg)
{
	struct crew_member *m = arg;
	struct load_crew *c = m->crew;
	switch (c->job) {
	case CREW_CONNECT:
		m->count = connect_share(m);
		break;
	case CREW_SERVE:
		load_fleet_serve(m->lf, c->ms);
		m->count = 0;
		break;
	case CREW_FINISH:
		m->count = load_fleet_finish(m->lf, c->ms);
		break;
	}
	pthread_mutex_lock(&c->lock);
	c->running--;
	pthread_cond_signal(&c->done);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* A thread that cannot start does its share on the caller's, at once. */
static void start(struct load_crew *c, enum crew_job job, unsigned ms)
{
	c->job = job;
	c->ms = ms;
	c->running = c->n;
	for (unsigned k = 0; k < c->n; k++) {
		struct crew_member *m = &c->m[k];
		m->started = !pthread_create(&m->thread, 0, member_main, m);
		if (!m->started)
			member_main(m);
	}
}

void load_crew_start_connect(struct load_crew *c)
{
	start(c, CREW_CONNECT, 0);
}

void load_crew_start_serve(struct load_crew *c, unsigned ms)
{
	start(c, CREW_SERVE, ms);
}

void load_crew_start_finish(struct load_crew *c, unsigned ms)
{
	start(c, CREW_FINISH, ms);
}

bool load_crew_wait(struct load_crew *c, unsigned ms, unsigned *count)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&c->lock);
	int rc = 0;
	while (c->running && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&c->done, &c->lock, &until);
	bool done = !c->running;
	pthread_mutex_unlock(&c->lock);
	if (!done)
		return false;
	unsigned sum = 0;
	for (unsigned k = 0; k < c->n; k++) {
		struct crew_member *m = &c->m[k];
		if (m->started)
			pthread_join(m->thread, 0);
		m->started = false;
		sum += m->count;
	}
	if (count)
		*count = sum;
	return true;
}

void load_crew_pace(struct load_crew *c, unsigned from, unsigned to,
		    unsigned interval_ms, bool measured)
{
	for (unsigned k = 0; k < c->n; k++) {
		struct crew_member *m = &c->m[k];
		if (to <= m->first || from >= m->first + m->sessions)
			continue;
		unsigned lo = from > m->first ? from - m->first : 0;
		unsigned hi =
		    to - m->first < m->sessions ? to - m->first : m->sessions;
		load_fleet_pace(m->lf, lo, hi, interval_ms,
				measured ? &m->stats : 0);
	}
}

void load_crew_take_stats(struct load_crew *c, struct send_stats *st)
{
	for (unsigned k = 0; k < c->n; k++) {
		struct send_stats *mine = &c->m[k].stats;
		st->bytes += mine->bytes;
		st->batches += mine->batches;
		st->latency_count += mine->latency_count;
		for (unsigned b = 0; b < SEND_STATS_BUCKETS; b++)
			st->latency_buckets[b] += mine->latency_buckets[b];
		*mine = (struct send_stats){0};
	}
}

void load_crew_take_busy(struct load_crew *c, struct load_fleet_busy *out)
{
	*out = (struct load_fleet_busy){0};
	for (unsigned k = 0; k < c->n; k++) {
		struct load_fleet_busy b;
		load_fleet_take_busy(c->m[k].lf, &b);
		if (b.longest_ns > out->longest_ns)
			out->longest_ns = b.longest_ns;
		out->long_turns += b.long_turns;
		out->turns += b.turns;
	}
}

/* The member that serves session i of the load, and i in its fleet. */
static const struct crew_member *member_of(const struct load_crew *c,
					   unsigned *i)
{
	unsigned k = 0;
	while (k + 1 < c->n && *i >= c->m[k + 1].first)
		k++;
	*i -= c->m[k].first;
	return &c->m[k];
}

const char *load_crew_log(const struct load_crew *c, unsigned i)
{
	const struct crew_member *m = member_of(c, &i);
	return load_fleet_log(m->lf, i);
}

uint64_t load_crew_lines_sent(const struct load_crew *c, unsigned i)
{
	const struct crew_member *m = member_of(c, &i);
	return load_fleet_lines_sent(m->lf, i);
}

uint64_t load_crew_lines_committed(const struct load_crew *c, unsigned i)
{
	const struct crew_member *m = member_of(c, &i);
	return load_fleet_lines_committed(m->lf, i);
}
