#include "load_stall.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct load_stall_probe {
	pthread_t thread;
	pthread_mutex_t lock;
	struct load_stalls stalls; /* under lock */
	atomic_bool stop;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void note(struct load_stall_probe *p, uint64_t late)
{
	pthread_mutex_lock(&p->lock);
	if (late > p->stalls.longest_ns)
		p->stalls.longest_ns = late;
	if (late > LOAD_STALL_LONG_NS)
		p->stalls.long_wakes++;
	p->stalls.wakes++;
	pthread_mutex_unlock(&p->lock);
}

static void *probe_main(void *arg)
{
	struct load_stall_probe *p = arg;
	const struct timespec nap = {0, (long)LOAD_STALL_SLEEP_NS};
	while (!atomic_load(&p->stop)) {
		uint64_t t0 = now_ns();
		nanosleep(&nap, 0);
		uint64_t slept = now_ns() - t0;
		note(p, slept > LOAD_STALL_SLEEP_NS
			    ? slept - LOAD_STALL_SLEEP_NS
			    : 0);
	}
	return 0;
}

struct load_stall_probe *load_stall_start(void)
{
	struct load_stall_probe *p = calloc(1, sizeof(*p));
	if (!p) {
		fprintf(stderr, "rpma-load: out of memory\n");
		return 0;
	}
	pthread_mutex_init(&p->lock, 0);
	int e = pthread_create(&p->thread, 0, probe_main, p);
	if (e) {
		fprintf(stderr, "rpma-load: cannot start the stall probe: %s\n",
			strerror(e));
		pthread_mutex_destroy(&p->lock);
		free(p);
		return 0;
	}
	return p;
}

void load_stall_take(struct load_stall_probe *p, struct load_stalls *out)
{
	if (!p) {
		*out = (struct load_stalls){0};
		return;
	}
	pthread_mutex_lock(&p->lock);
	*out = p->stalls;
	p->stalls = (struct load_stalls){0};
	pthread_mutex_unlock(&p->lock);
}

void load_stall_stop(struct load_stall_probe *p)
{
	if (!p)
		return;
	atomic_store(&p->stop, true);
	pthread_join(p->thread, 0);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
