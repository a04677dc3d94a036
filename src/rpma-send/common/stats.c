#include "common/stats.h"

#include <string.h>
#include <time.h>

uint64_t send_stats_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void send_stats_sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, 0);
}

void send_stats_start(struct send_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->start_ns = send_stats_now_ns();
}

/* Values below 8 get a bucket each; above, 8 buckets per power of two. */
static unsigned bucket_of(uint64_t v)
{
	if (v < 8)
		return (unsigned)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	unsigned sub = (unsigned)(v >> (msb - 3)) & 7u;
	return (msb - 2) * 8 + sub;
}

static uint64_t bucket_upper(unsigned b)
{
	if (b < 8)
		return b;
	unsigned msb = b / 8 + 2;
	uint64_t sub = b % 8;
	uint64_t lower = (8 + sub) << (msb - 3);
	return lower + ((uint64_t)1 << (msb - 3)) - 1;
}

void send_stats_commit(struct send_stats *st, uint64_t bytes,
		       uint64_t latency_ns, uint64_t now_ns)
{
	st->last_commit_ns = now_ns;
	st->bytes += bytes;
	st->batches++;
	st->latency_count++;
	st->latency_buckets[bucket_of(latency_ns)]++;
}

uint64_t send_stats_percentile(const struct send_stats *st, double p)
{
	if (st->latency_count == 0)
		return 0;
	uint64_t want = (uint64_t)(p * (double)st->latency_count);
	if (want >= st->latency_count)
		want = st->latency_count - 1;
	uint64_t seen = 0;
	for (unsigned b = 0; b < SEND_STATS_BUCKETS; b++) {
		seen += st->latency_buckets[b];
		if (seen > want)
			return bucket_upper(b);
	}
	return bucket_upper(SEND_STATS_BUCKETS - 1);
}

void send_stats_posted(struct send_stats *st, uint64_t now_ns)
{
	if (!st->first_post_ns)
		st->first_post_ns = now_ns;
}

double send_stats_streaming(const struct send_stats *st)
{
	if (!st->first_post_ns || st->last_commit_ns <= st->first_post_ns)
		return 0;
	return (double)(st->last_commit_ns - st->first_post_ns) / 1e9;
}

double send_stats_elapsed(const struct send_stats *st)
{
	return (double)(send_stats_now_ns() - st->start_ns) / 1e9;
}
