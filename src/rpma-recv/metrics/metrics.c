#include "metrics/metrics.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A label value, escaped as the text format wants. */
static void put_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void put_labels(FILE *f, const struct recv_metrics_log *l)
{
	fputs("{log=\"", f);
	put_value(f, l->name);
	fputs("\",pool=\"", f);
	put_value(f, l->pool);
	fputc('"', f);
}

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static uint64_t bytes_of(const struct recv_metrics_log *l)
{
	return l->counts.committed_bytes;
}
static uint64_t commits_of(const struct recv_metrics_log *l)
{
	return l->counts.commits;
}
static uint64_t put_back_of(const struct recv_metrics_log *l)
{
	return l->counts.offsets_put_back;
}
static uint64_t senders_of(const struct recv_metrics_log *l)
{
	return l->counts.senders;
}
static uint64_t size_of(const struct recv_metrics_log *l)
{
	return l->log_bytes;
}
static uint64_t used_of(const struct recv_metrics_log *l)
{
	return l->used_bytes;
}

static uint64_t rotated_of(const struct recv_metrics_log *l)
{
	return l->rotated_bytes;
}
static uint64_t archive_bytes_of(const struct recv_metrics_log *l)
{
	return l->archive_bytes;
}
static uint64_t archive_files_of(const struct recv_metrics_log *l)
{
	return l->archive_files;
}

/* The series with one number per log: a row each, as the text format
 * shows them (the histogram and the refusals by reason are apart). */
static const struct per_log_series {
	const char *name, *type, *help;
	uint64_t (*value)(const struct recv_metrics_log *);
} per_log_series[] = {
    {"rpma_recv_committed_bytes_total", "counter",
     "Bytes committed to the log since the receiver started.", bytes_of},
    {"rpma_recv_commits_total", "counter",
     "Batches committed to the log since the receiver started.", commits_of},
    {"rpma_recv_offsets_put_back_total", "counter",
     "Write offsets a writer that commits alone (apm, flush) stored that "
     "broke a rule: its session was ended and the last good one put back.",
     put_back_of},
    {"rpma_recv_senders", "gauge",
     "Senders connected to the log now, verifiers included.", senders_of},
    {"rpma_recv_log_size_bytes", "gauge", "Bytes of log the pool holds.",
     size_of},
    {"rpma_recv_log_used_bytes", "gauge",
     "Bytes of the log committed and not yet reclaimed.", used_of},
    {"rpma_recv_log_rotated_bytes", "gauge",
     "Log position of the pool's first byte: what rotation moved out of "
     "the pool before it.",
     rotated_of},
    {"rpma_recv_archive_bytes", "gauge",
     "Bytes of the log kept in its archive's files.", archive_bytes_of},
    {"rpma_recv_archive_files", "gauge", "Files in the log's archive.",
     archive_files_of},
};

/* One number of each log: name{labels} value. */
static void per_log(FILE *f, const struct recv_metrics *m,
		    const struct per_log_series *row)
{
	family(f, row->name, row->type, row->help);
	for (unsigned i = 0; i < m->nlogs; i++) {
		fputs(row->name, f);
		put_labels(f, &m->logs[i]);
		fprintf(f, "} %llu\n",
			(unsigned long long)row->value(&m->logs[i]));
	}
}

static void persist_histogram(FILE *f, const struct recv_metrics_log *l)
{
	const char *name = "rpma_recv_persist_seconds";
	uint64_t cumulative = 0;
	for (size_t b = 0; b < RECV_PERSIST_BUCKETS; b++) {
		cumulative += l->counts.persist_in[b];
		fprintf(f, "%s_bucket", name);
		put_labels(f, l);
		if (recv_persist_bucket_ns[b] == UINT64_MAX)
			fprintf(f, ",le=\"+Inf\"} %llu\n",
				(unsigned long long)cumulative);
		else
			fprintf(f, ",le=\"%g\"} %llu\n",
				(double)recv_persist_bucket_ns[b] / 1e9,
				(unsigned long long)cumulative);
	}
	fprintf(f, "%s_sum", name);
	put_labels(f, l);
	fprintf(f, "} %.9f\n%s_count", (double)l->counts.persist_ns / 1e9,
		name);
	put_labels(f, l);
	fprintf(f, "} %llu\n", (unsigned long long)l->counts.commits);
}

static void refusals(FILE *f, const struct recv_metrics_log *l,
		     const struct recv_log_counts *c)
{
	for (int r = 0; r < RECV_REFUSALS; r++) {
		fputs("rpma_recv_refused_total", f);
		put_labels(f, l);
		fprintf(f, ",reason=\"%s\"} %llu\n",
			recv_refusal_name((enum recv_refusal)r),
			(unsigned long long)c->refused[r]);
	}
}

/* The receiver's own figures: one number each, no labels. */
static void receiver_figures(FILE *f, const struct recv_metrics_receiver *r)
{
	const struct {
		const char *name, *help;
		uint64_t value;
	} rows[] = {
	    {"rpma_recv_senders_connected",
	     "Senders connected now, over every log.", r->senders},
	    {"rpma_recv_logs_open", "Logs opened and served.", r->logs_open},
	    {"rpma_recv_logs_opening",
	     "Logs still to open since the receiver started (a sender of one "
	     "is told to ask again).",
	     r->logs_opening},
	    {"rpma_recv_worker_threads",
	     "Threads that serve the logs (the workers setting).", r->workers},
	    {"rpma_recv_threads", "Threads of the receiver's process.",
	     r->threads},
	    {"rpma_recv_resident_bytes",
	     "Resident memory of the receiver's process.", r->resident_bytes},
	    {"rpma_recv_pinned_bytes",
	     "Memory pinned by the receiver's RDMA registrations.",
	     r->pinned_bytes},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		family(f, rows[i].name, "gauge", rows[i].help);
		fprintf(f, "%s %llu\n", rows[i].name,
			(unsigned long long)rows[i].value);
	}
}

void recv_metrics_render(FILE *f, const struct recv_metrics *m)
{
	family(f, "rpma_recv_info", "gauge", "The receiver that wrote this.");
	fprintf(f, "rpma_recv_info{pid=\"%ld\"} 1\n", m->pid);
	family(f, "rpma_recv_metrics_written_seconds", "gauge",
	       "When this was written, in seconds since the epoch.");
	fprintf(f, "rpma_recv_metrics_written_seconds %.3f\n", m->written);
	receiver_figures(f, &m->receiver);
	for (size_t i = 0; i < sizeof(per_log_series) / sizeof(*per_log_series);
	     i++)
		per_log(f, m, &per_log_series[i]);
	family(f, "rpma_recv_persist_seconds", "histogram",
	       "How long a commit took to make its batch and offset "
	       "persistent.");
	for (unsigned i = 0; i < m->nlogs; i++)
		persist_histogram(f, &m->logs[i]);
	family(f, "rpma_recv_refused_total", "counter",
	       "Senders refused, by reason (log=\"\": no log served by "
	       "that name).");
	for (unsigned i = 0; i < m->nlogs; i++)
		refusals(f, &m->logs[i], &m->logs[i].counts);
	struct recv_metrics_log none = {.name = "", .pool = ""};
	refusals(f, &none, &m->unrouted);
}

static const char *kind_of(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	return "not a regular file";
}

int recv_metrics_path_check(const char *path, bool missing_dir_ok,
			    struct rs_error *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return rs_error_set(err, RS_E_IO, 0,
				    "metrics file %s is %s: give the path of a "
				    "regular file, such as "
				    "/run/rpma-ship/rpma-recv.prom (each write "
				    "replaces it whole)",
				    path, kind_of(st.st_mode));
	char copy[4096];
	snprintf(copy, sizeof(copy), "%s", path);
	const char *dir = dirname(copy);
	if (access(dir, W_OK | X_OK) == 0)
		return 0;
	int e = errno;
	if (e == ENOENT && missing_dir_ok)
		return 0;
	if (e == ENOENT)
		return rs_error_set(err, RS_E_IO, e,
				    "metrics file %s: its directory %s does "
				    "not exist: create it, or fix the path",
				    path, dir);
	return rs_error_set(err, RS_E_IO, e,
			    "metrics file %s: cannot create files in %s: %s: "
			    "rpma-recv needs write access to that directory",
			    path, dir,
			    e == EACCES	 ? "permission denied"
			    : e == EROFS ? "read-only file system"
					 : strerror(e));
}

int recv_metrics_write(const char *path, const struct recv_metrics *m,
		       struct rs_error *err)
{
	int rc = recv_metrics_path_check(path, false, err);
	if (rc)
		return rc;
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f)
		return rs_error_set(err, RS_E_IO, errno,
				    "cannot write metrics file %s: %s", tmp,
				    strerror(errno));
	recv_metrics_render(f, m);
	int bad = ferror(f);
	if (fclose(f) || bad || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return rs_error_set(err, RS_E_IO, e,
				    "cannot write metrics file %s: %s", path,
				    strerror(e));
	}
	return 0;
}
