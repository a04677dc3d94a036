/* The receiver's counters (metrics/counters.h) in Prometheus' text exposition
 * format, for node-exporter's textfile collector (Debian's
 * prometheus-node-exporter reads the .prom files of
 * /var/lib/prometheus/node-exporter): one series per log (labels log and pool),
 * written to a temporary file beside the target and renamed over it, so a
 * reader never sees half of one. --info reads a served log's figures back from
 * it. */
#ifndef RECV_METRICS_H
#define RECV_METRICS_H

#include "error.h"
#include "metrics/counters.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct recv_metrics_log {
	const char *name; /* "" for `rpma-recv POOL` */
	const char *pool;
	uint64_t log_bytes, used_bytes;
	uint64_t rotated_bytes, archive_bytes; /* rotation/rotation.h */
	unsigned archive_files;
	struct recv_log_counts counts;
};

/* What the receiver as a whole holds: a fleet's cost in one look. */
struct recv_metrics_receiver {
	unsigned senders;      /* connected now, over every log */
	unsigned logs_open;    /* served */
	unsigned logs_opening; /* still to open since the start */
	unsigned workers;      /* threads serving the logs */
	unsigned threads;      /* of the process */
	uint64_t resident_bytes, pinned_bytes;
};

/* What a receiver wrote: its logs, and the refusals that named no log it
 * serves (log="" pool=""). */
struct recv_metrics {
	long pid;
	double written; /* seconds since the epoch */
	struct recv_metrics_receiver receiver;
	const struct recv_metrics_log *logs;
	unsigned nlogs;
	struct recv_log_counts unrouted;
};

void recv_metrics_render(FILE *f, const struct recv_metrics *m);

/* Whether path can be the metrics file, asked without writing: it is a
 * regular file or not there yet, and its directory takes the temporary
 * file. 0, or RS_E_IO with "metrics file PATH ...: why; the fix". A
 * directory, device or FIFO is refused: the rename would replace it
 * (/dev/null, for a root service). With missing_dir_ok, a directory not
 * there yet passes (--check-config before the service's first start: its
 * RuntimeDirectory comes with the unit; the receiver tries each interval). */
int recv_metrics_path_check(const char *path, bool missing_dir_ok,
			    struct rs_error *err);

/* Renders m into path, atomically, when recv_metrics_path_check() passes.
 * RS_E_IO with the file named. */
int recv_metrics_write(const char *path, const struct recv_metrics *m,
		       struct rs_error *err);

/* A log's figures as a metrics file holds them. */
struct recv_metrics_found {
	char name[64];
	long pid;
	double written;
	struct recv_metrics_receiver receiver;
	struct recv_log_counts counts;
	uint64_t rotated_bytes, archive_bytes, archive_files;
};

/* Finds the log served from pool in the metrics file at path: 0 and *out
 * filled, or RS_E_IO (no file) or RS_E_INVAL (no such log in it). */
int recv_metrics_find(const char *path, const char *pool,
		      struct recv_metrics_found *out, struct rs_error *err);

#endif
