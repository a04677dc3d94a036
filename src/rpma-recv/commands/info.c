#include "commands/info.h"

#include "cli/log.h"
#include "cli/size.h"
#include "error.h"
#include "metrics/metrics.h"
#include "pool/peek.h"
#include "proto/pool_layout.h"

#include <stdio.h>
#include <time.h>

static const char *granularity_name(enum pmem2_granularity g)
{
	switch (g) {
	case PMEM2_GRANULARITY_BYTE:
		return "byte (PMem with eADR)";
	case PMEM2_GRANULARITY_CACHE_LINE:
		return "cache line (PMem)";
	default:
		return "page (page cache, persisted with msync)";
	}
}

static void print_pool(const char *path, const struct recv_pool_peek *p)
{
	uint64_t size = p->end - p->start, used = p->write - p->start;
	char uuid[RS_POOL_UUID_TEXT], a[32], b[32], c[32];
	rs_pool_uuid_text(p->uuid, uuid);
	printf("pool: %s\n", path);
	printf("uuid: %s\n", uuid);
	printf("log size: %llu bytes (%s)\n", (unsigned long long)size,
	       rs_size_format(size, a, sizeof(a)));
	printf("used: %llu bytes (%s, %.1f%%)\n", (unsigned long long)used,
	       rs_size_format(used, b, sizeof(b)),
	       size ? 100.0 * (double)used / (double)size : 0.0);
	printf("free: %llu bytes (%s)\n", (unsigned long long)(size - used),
	       rs_size_format(size - used, c, sizeof(c)));
	printf("store granularity: %s\n", granularity_name(p->granularity));
	if (p->base)
		printf("log position of its first byte: %llu (%s of the log "
		       "before it were rotated into its archive)\n",
		       (unsigned long long)p->base,
		       rs_size_format(p->base, a, sizeof(a)));
}

static void print_refusals(const struct recv_log_counts *c)
{
	printf("refused:");
	unsigned n = 0;
	for (int r = 0; r < RECV_REFUSALS; r++) {
		if (!c->refused[r])
			continue;
		printf("%s %s %llu", n++ ? "," : "",
		       recv_refusal_name((enum recv_refusal)r),
		       (unsigned long long)c->refused[r]);
	}
	printf("%s\n", n ? "" : " none");
}

/* The counters of the receiver that serves the pool, as its metrics file
 * holds them. */
static void print_served(const char *metrics, const char *path)
{
	struct recv_metrics_found f;
	if (recv_metrics_find(metrics, path, &f, 0)) {
		printf("served: not listed in %s\n", metrics);
		return;
	}
	const struct recv_log_counts *c = &f.counts;
	char bytes[32];
	double age = (double)time(0) - f.written;
	printf("served: as log %s by rpma-recv (pid %ld), figures of %.0f s "
	       "ago (%s)\n",
	       f.name[0] ? f.name : "(unnamed)", f.pid, age > 0 ? age : 0,
	       metrics);
	printf("committed since it started: %llu bytes (%s) in %llu commits, "
	       "%.1f us each to persist on average\n",
	       (unsigned long long)c->committed_bytes,
	       rs_size_format(c->committed_bytes, bytes, sizeof(bytes)),
	       (unsigned long long)c->commits,
	       c->commits ? (double)c->persist_ns / 1e3 / (double)c->commits
			  : 0.0);
	printf("senders connected: %u\n", c->senders);
	const struct recv_metrics_receiver *r = &f.receiver;
	char res[32], pin[32];
	printf("receiver: %u senders connected over all its logs, %s "
	       "resident, %s pinned by RDMA registrations, %u threads (%u "
	       "serving the logs)\n",
	       r->senders, rs_size_format(r->resident_bytes, res, sizeof(res)),
	       rs_size_format(r->pinned_bytes, pin, sizeof(pin)), r->threads,
	       r->workers);
	print_refusals(c);
	if (c->offsets_put_back)
		printf("write offsets put back: %llu (a writer that commits "
		       "alone stored one that broke a rule; its session was "
		       "ended)\n",
		       (unsigned long long)c->offsets_put_back);
	if (f.archive_files || f.rotated_bytes) {
		char a[32], b[32];
		printf(
		    "archive: %llu files, %llu bytes (%s); the pool starts at "
		    "log position %llu (%s)\n",
		    (unsigned long long)f.archive_files,
		    (unsigned long long)f.archive_bytes,
		    rs_size_format(f.archive_bytes, a, sizeof(a)),
		    (unsigned long long)f.rotated_bytes,
		    rs_size_format(f.rotated_bytes, b, sizeof(b)));
	}
}

int recv_info_print(const char *pool_path, const char *metrics)
{
	struct recv_pool_peek p;
	struct rs_error err = {0};
	int rc = recv_pool_peek(pool_path, &p, &err);
	if (rc) {
		rs_err("%s", err.msg);
		return rc;
	}
	print_pool(pool_path, &p);
	if (metrics)
		print_served(metrics, pool_path);
	return 0;
}
