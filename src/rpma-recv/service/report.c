/* What the service tells operators while it runs: the line of `systemctl
 * status` (service/status_line.h) and the metrics file (metrics/metrics.h),
 * both from the logs' counters (metrics/counters.h). */
#include "service/internal.h"

#include "cli/log.h"
#include "cli/proc_status.h"
#include "metrics/metrics.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *label_of(const struct served_log *l)
{
	return l->settings.name[0] ? l->settings.name : l->settings.pool_path;
}

/* Bytes committed since the start, over every log still known. */
static uint64_t committed_of(const struct service *svc)
{
	uint64_t sum = 0;
	for (const struct served_log *l = svc->logs; l; l = l->next) {
		struct recv_log_counts c;
		recv_counters_read(recv_log_worker_counters(l->worker), &c);
		sum += c.committed_bytes;
	}
	return sum;
}

static void status_update(struct service *svc, const char *head)
{
	if (!svc->status.enabled)
		return;
	const char *names[RECV_LOGS_MAX];
	struct recv_status_log usage[RECV_LOGS_MAX];
	struct recv_status st = {.names = names, .usage = usage};
	for (const struct served_log *l = svc->logs; l; l = l->next)
		st.nlogs += !l->retired;
	/* The newest log is first in the list: the line names them in the
	 * order they were configured. */
	st.nnames = st.nlogs < RECV_LOGS_MAX ? st.nlogs : RECV_LOGS_MAX;
	unsigned i = st.nnames;
	for (const struct served_log *l = svc->logs; l && i; l = l->next) {
		if (l->retired)
			continue;
		names[--i] = label_of(l);
		struct recv_log_usage u;
		recv_log_worker_usage(l->worker, &u);
		usage[i] = (struct recv_status_log){
		    .fill = u.size ? (unsigned)(u.used * 100 / u.size) : 0,
		    .archived = u.archived};
	}
	st.opening = svc->opening;
	st.senders = atomic_load(&svc->counters.senders);
	st.committed = committed_of(svc);
	char text[RECV_STATUS_TEXT_MAX];
	recv_status_text(&st, text, sizeof(text));
	recv_status_line_send(&svc->status, head, text);
}

/* Every log the service serves, retired ones until their thread ends. */
static unsigned snapshot(struct service *svc, struct recv_metrics_log *logs)
{
	unsigned n = 0;
	for (const struct served_log *l = svc->logs; l && n < RECV_LOGS_MAX;
	     l = l->next, n++) {
		struct recv_metrics_log *m = &logs[n];
		m->name = l->settings.name;
		m->pool = l->settings.pool_path;
		struct recv_log_usage u;
		recv_log_worker_usage(l->worker, &u);
		m->log_bytes = u.size;
		m->used_bytes = u.used;
		m->rotated_bytes = u.rotated;
		m->archive_bytes = u.archived;
		m->archive_files = u.archive_files;
		recv_counters_read(recv_log_worker_counters(l->worker),
				   &m->counts);
	}
	return n;
}

static void receiver_figures(const struct service *svc,
			     struct recv_metrics_receiver *r)
{
	struct rs_proc_status st;
	rs_proc_status_read(0, &st);
	unsigned open = 0;
	for (const struct served_log *l = svc->logs; l; l = l->next)
		open += !l->retired;
	*r = (struct recv_metrics_receiver){
	    .senders = atomic_load(&svc->counters.senders),
	    .logs_open = open,
	    .logs_opening = svc->opening,
	    .workers = recv_threads_count(svc->threads),
	    .threads = st.threads,
	    .resident_bytes = st.resident_bytes,
	    .pinned_bytes = st.pinned_bytes};
}

static void metrics_write(struct service *svc)
{
	struct recv_metrics_log *logs = calloc(RECV_LOGS_MAX, sizeof(*logs));
	if (!logs)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	struct recv_metrics m = {.pid = (long)getpid(),
				 .written = (double)ts.tv_sec +
					    (double)ts.tv_nsec / 1e9,
				 .logs = logs,
				 .nlogs = snapshot(svc, logs)};
	recv_counters_read(&svc->unrouted, &m.unrouted);
	receiver_figures(svc, &m.receiver);
	struct rs_error err = {0};
	if (recv_metrics_write(svc->settings.metrics_file, &m, &err)) {
		if (!svc->metrics_failing)
			rs_warn("%s; trying again every metrics-interval",
				err.msg);
		svc->metrics_failing = true;
	} else if (svc->metrics_failing) {
		rs_info("metrics file %s written again",
			svc->settings.metrics_file);
		svc->metrics_failing = false;
	}
	free(logs);
}

void recv_service_report(struct service *svc, const char *head, uint64_t now_ns)
{
	status_update(svc, head);
	if (!svc->settings.metrics_file[0] || now_ns < svc->metrics_due_ns)
		return;
	metrics_write(svc);
	svc->metrics_due_ns =
	    now_ns + (uint64_t)svc->settings.metrics_interval_ms * 1000000u;
}

void recv_service_report_final(struct service *svc)
{
	if (svc->settings.metrics_file[0])
		metrics_write(svc);
}
