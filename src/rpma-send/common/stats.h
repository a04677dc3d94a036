/* Throughput and commit-latency statistics of one run, in bounded memory:
 * latencies go into a log-linear histogram (8 sub-buckets per power of two,
 * so a percentile is within 12.5%), whatever the run's length. */
#ifndef SEND_STATS_H
#define SEND_STATS_H

#include <stdint.h>

#define SEND_STATS_BUCKETS (64 * 8)

struct send_stats {
	uint64_t start_ns;	 /* before connecting */
	uint64_t first_post_ns;	 /* the first batch posted, or 0 */
	uint64_t last_commit_ns; /* the last batch confirmed, or 0 */
	uint64_t bytes;
	uint64_t batches;
	uint64_t latency_count;
	uint64_t latency_buckets[SEND_STATS_BUCKETS];
};

uint64_t send_stats_now_ns(void);
/* Sleeps on the same clock (back-off, --follow's pause). */
void send_stats_sleep_ms(unsigned ms);
void send_stats_start(struct send_stats *st);
/* A batch was posted at now_ns (the first one starts the streaming time). */
void send_stats_posted(struct send_stats *st, uint64_t now_ns);
/* A batch of bytes was confirmed at now_ns (the caller's clock reading),
 * latency_ns after it was posted. */
void send_stats_commit(struct send_stats *st, uint64_t bytes,
		       uint64_t latency_ns, uint64_t now_ns);
/* The latency below which fraction p (0..1) of commits fell, in ns (the
 * upper edge of its bucket), or 0 when there were none. */
uint64_t send_stats_percentile(const struct send_stats *st, double p);
/* Seconds since send_stats_start (connecting included). */
double send_stats_elapsed(const struct send_stats *st);
/* Seconds from the first batch posted to the last one confirmed: the time
 * data was moving, as perftest times its transfers (0 before a commit). */
double send_stats_streaming(const struct send_stats *st);

#endif
