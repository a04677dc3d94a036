/* The lines of --stats. */
#include "commands/ship_stats.h"

#include "common/stats.h"
#include "proto/method.h"

#include <stdio.h>

/* MB/s is over the streaming time (first batch posted to last confirmed),
 * as perftest reports; total_seconds is the whole run, connecting and
 * closing included. */
void ship_stats_print(FILE *out, const struct ship_result *r,
		      struct send_phases *times)
{
	const struct send_stats *st = &r->stats;
	double secs = send_stats_streaming(st);
	/* One end for both lines: the phases then add up to total_seconds
	 * however long the printing takes (a slow stderr, a busy host). */
	uint64_t end_ns = send_stats_now_ns();
	fprintf(out,
		"rpma-send: stats: bytes=%llu batches=%llu seconds=%.3f "
		"MBps=%.2f commit_us_p50=%.1f commit_us_p90=%.1f "
		"commit_us_p99=%.1f method=%s total_seconds=%.3f\n",
		(unsigned long long)st->bytes, (unsigned long long)st->batches,
		secs, secs > 0 ? (double)st->bytes / secs / 1e6 : 0.0,
		send_stats_percentile(st, 0.50) / 1e3,
		send_stats_percentile(st, 0.90) / 1e3,
		send_stats_percentile(st, 0.99) / 1e3,
		rs_method_name(r->method),
		(double)(end_ns - times->main_ns) / 1e9);
	for (unsigned i = 0; r->nreplicas > 1 && i < r->nreplicas; i++) {
		const struct ship_replica_result *rr = &r->replicas[i];
		fprintf(out,
			"rpma-send: stats: replica=%s state=%s bytes=%llu "
			"lag=%llu commit_us_p50=%.1f commit_us_p90=%.1f "
			"commit_us_p99=%.1f method=%s\n",
			rr->label, rr->state, (unsigned long long)rr->committed,
			(unsigned long long)rr->lag,
			send_stats_percentile(&rr->stats, 0.50) / 1e3,
			send_stats_percentile(&rr->stats, 0.90) / 1e3,
			send_stats_percentile(&rr->stats, 0.99) / 1e3,
			rs_method_name(rr->method));
	}
	times->stats = st;
	times->now_ns = end_ns;
	send_phases_print(out, times);
}
