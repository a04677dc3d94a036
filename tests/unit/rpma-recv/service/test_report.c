/* What a running receiver tells operators (service/report.c), from its
 * logs' counters: the `systemctl status` line names the logs served (not
 * those a reload retired) in the order they were configured, with their
 * fill and archive, and counts the bytes of every log still known; the
 * metrics file holds every log, retired ones too, the refusals that named
 * none, and the receiver's own figures, written when due (each
 * metrics-interval) and once more at the end; a file that cannot be
 * written is said once, and again when it is written again.
 * The logs' workers are fakes holding counters and usage: the test links
 * with --wrap for recv_log_worker_counters and recv_log_worker_usage. The
 * metrics file is in a directory of its own; stderr is a file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stderr_capture.h"

#include "metrics/metrics.h"
#include "service/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MS 1000000ull
#define INTERVAL_MS 1000u
#define T0 (3600000 * MS) /* the first report */

/* ---- the logs' workers, as the report finds them ---- */

struct fake_worker {
	struct recv_log_counters counters;
	struct recv_log_usage usage;
};

struct recv_log_counters *
__wrap_recv_log_worker_counters(struct recv_log_worker *w);
struct recv_log_counters *
__wrap_recv_log_worker_counters(struct recv_log_worker *w)
{
	return &((struct fake_worker *)w)->counters;
}

void __wrap_recv_log_worker_usage(const struct recv_log_worker *w,
				  struct recv_log_usage *u);
void __wrap_recv_log_worker_usage(const struct recv_log_worker *w,
				  struct recv_log_usage *u)
{
	*u = ((const struct fake_worker *)w)->usage;
}

/* ---- a service of three logs on two threads ---- */

/* In the order configured: app, audit (retired by a reload), web. */
enum { APP, AUDIT, WEB, NLOGS };

struct fixture {
	struct service svc;
	struct served_log logs[NLOGS];
	struct fake_worker workers[NLOGS];
	char dir[64];
};

static void log_is(struct fixture *f, unsigned i, const char *name,
		   uint64_t committed, struct recv_log_usage usage)
{
	struct served_log *l = &f->logs[i];
	snprintf(l->settings.name, sizeof(l->settings.name), "%s", name);
	snprintf(l->settings.pool_path, sizeof(l->settings.pool_path),
		 "/pmem/%s.pool", name);
	l->worker = (struct recv_log_worker *)&f->workers[i];
	l->order = i;
	recv_counters_committed(&f->workers[i].counters, committed, 1000);
	f->workers[i].usage = usage;
	/* the newest first in the list */
	l->next = f->svc.logs;
	f->svc.logs = l;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct rs_error err = {0};
	assert_non_null(f);
	assert_int_equal(recv_threads_start(2, false, &f->svc.threads, &err),
			 0);
	strcpy(f->dir, "/tmp/rs-test-report-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->svc.settings.metrics_file,
		 sizeof(f->svc.settings.metrics_file), "%s/rpma-recv.prom",
		 f->dir);
	f->svc.settings.metrics_interval_ms = INTERVAL_MS;
	log_is(f, APP, "app", 1000,
	       (struct recv_log_usage){.size = 1000,
				       .used = 410,
				       .rotated = 7000,
				       .archived = 2048,
				       .archive_files = 2});
	log_is(f, AUDIT, "audit", 500, (struct recv_log_usage){.size = 100});
	f->logs[AUDIT].retired = true;
	log_is(f, WEB, "web", 548,
	       (struct recv_log_usage){.size = 4096, .used = 1024});
	recv_counters_connected(&f->workers[APP].counters);
	recv_counters_refused(&f->workers[APP].counters, RECV_REFUSED_BUSY);
	recv_counters_refused(&f->svc.unrouted, RECV_REFUSED_AUTH);
	atomic_store(&f->svc.counters.senders, 3);
	f->svc.opening = 1;
	unsetenv("NOTIFY_SOCKET"); /* the line is kept, not sent */
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	recv_threads_stop(&f->svc.threads);
	const char *names[] = {"later/rpma-recv.prom", "later",
			       "rpma-recv.prom"};
	char path[128];
	for (unsigned i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", f->dir, names[i]);
		remove(path);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

/* ---- what the metrics file holds ---- */

/* The file's text (its first 64 KiB). */
static const char *metrics_text(const struct fixture *f)
{
	static char text[1 << 16];
	FILE *in = fopen(f->svc.settings.metrics_file, "r");
	assert_non_null(in);
	size_t n = fread(text, 1, sizeof(text) - 1, in);
	text[n] = '\0';
	fclose(in);
	return text;
}

static void metrics_hold(const struct fixture *f, const char *line)
{
	const char *text = metrics_text(f);
	if (!strstr(text, line))
		fail_msg("no line \"%s\" in:\n%s", line, text);
}

/* The bytes committed to app, as the file says. */
static uint64_t committed_said(const struct fixture *f)
{
	struct recv_metrics_found found;
	assert_int_equal(recv_metrics_find(f->svc.settings.metrics_file,
					   "/pmem/app.pool", &found, 0),
			 0);
	return found.counts.committed_bytes;
}

/* ---- the tests ---- */

/* app 41% of its pool with 2 KiB archived and web 25%, in that order,
 * audit retired and not named but its bytes counted: 2 KiB in all. */
static void the_status_line_names_the_logs_served_in_order(void **state)
{
	struct fixture *f = *state;
	f->svc.settings.metrics_file[0] = '\0';
	recv_service_report(&f->svc, "READY=1\n", T0);
	assert_string_equal(f->svc.status.sent, ""); /* not under systemd */
	f->svc.status.enabled = true;
	recv_service_report(&f->svc, "READY=1\n", T0);
	assert_string_equal(f->svc.status.sent,
			    "serving 2 logs (1 more opening) (app 41% +2.0 KiB "
			    "archived, web 25%), 3 senders connected, 2.0 KiB "
			    "committed");
	/* the unnamed log (`rpma-recv POOL`) is named by its pool */
	f->logs[WEB].settings.name[0] = '\0';
	f->logs[APP].retired = true;
	f->svc.opening = 0;
	recv_service_report(&f->svc, NULL, T0);
	assert_string_equal(f->svc.status.sent,
			    "serving 1 log (/pmem/web.pool 25%), 3 senders "
			    "connected, 2.0 KiB committed");
}

/* Each log's series, the retired one's too, labelled with its name and
 * pool; the refusals that named no log; the receiver's figures: 2 logs
 * open, 1 opening, 2 worker threads. */
static void the_metrics_file_holds_every_log_and_the_receiver(void **state)
{
	struct fixture *f = *state;
	recv_service_report(&f->svc, NULL, T0);
	struct recv_metrics_found app, audit;
	const char *path = f->svc.settings.metrics_file;
	assert_int_equal(recv_metrics_find(path, "/pmem/app.pool", &app, 0), 0);
	assert_string_equal(app.name, "app");
	assert_int_equal(app.pid, getpid());
	assert_int_equal(app.counts.committed_bytes, 1000);
	assert_int_equal(app.counts.commits, 1);
	assert_int_equal(app.counts.senders, 1);
	assert_int_equal(app.counts.refused[RECV_REFUSED_BUSY], 1);
	assert_int_equal(app.rotated_bytes, 7000);
	assert_int_equal(app.archive_bytes, 2048);
	assert_int_equal(app.archive_files, 2);
	assert_int_equal(app.receiver.senders, 3);
	assert_int_equal(app.receiver.workers, 2);
	assert_true(app.receiver.threads >= 3); /* this one and the two */
	assert_int_equal(recv_metrics_find(path, "/pmem/audit.pool", &audit, 0),
			 0);
	assert_string_equal(audit.name, "audit");
	assert_int_equal(audit.counts.committed_bytes, 500);
	metrics_hold(f, "rpma_recv_log_size_bytes{log=\"app\",pool=\"/pmem/"
			"app.pool\"} 1000\n");
	metrics_hold(f, "rpma_recv_log_used_bytes{log=\"app\",pool=\"/pmem/"
			"app.pool\"} 410\n");
	metrics_hold(f, "rpma_recv_log_used_bytes{log=\"web\",pool=\"/pmem/"
			"web.pool\"} 1024\n");
	metrics_hold(f, "rpma_recv_refused_total{log=\"\",pool=\"\",reason="
			"\"auth\"} 1\n");
	metrics_hold(f, "\nrpma_recv_logs_open 2\n");
	metrics_hold(f, "\nrpma_recv_logs_opening 1\n");
}

/* Written at the first report, then not before a metrics-interval has
 * passed, then at it; at the end whenever; never without a file set. */
static void the_metrics_file_is_written_each_interval(void **state)
{
	struct fixture *f = *state;
	struct recv_log_counters *app = &f->workers[APP].counters;
	recv_service_report(&f->svc, NULL, T0);
	assert_int_equal(committed_said(f), 1000);
	recv_counters_committed(app, 1000, 1000);
	recv_service_report(&f->svc, NULL, T0 + INTERVAL_MS * MS - 1);
	assert_int_equal(committed_said(f), 1000);
	recv_service_report(&f->svc, NULL, T0 + INTERVAL_MS * MS);
	assert_int_equal(committed_said(f), 2000);
	recv_counters_committed(app, 1000, 1000);
	recv_service_report_final(&f->svc);
	assert_int_equal(committed_said(f), 3000);

	unlink(f->svc.settings.metrics_file);
	char was[sizeof(f->svc.settings.metrics_file)];
	strcpy(was, f->svc.settings.metrics_file);
	f->svc.settings.metrics_file[0] = '\0';
	recv_service_report(&f->svc, NULL, T0 + 100 * INTERVAL_MS * MS);
	recv_service_report_final(&f->svc);
	assert_int_equal(access(was, F_OK), -1);
}

/* The report at now, and what it said. */
static const char *report_says(struct fixture *f, uint64_t now)
{
	stderr_capture_start();
	recv_service_report(&f->svc, NULL, now);
	return stderr_capture_end();
}

/* A directory that is not there: said once with the fix, not at the next
 * tries; once it is there, the file is written and that is said once. */
static void a_file_not_written_is_said_once_and_its_return(void **state)
{
	struct fixture *f = *state;
	char dir[96], want[512];
	snprintf(dir, sizeof(dir), "%s/later", f->dir);
	snprintf(f->svc.settings.metrics_file,
		 sizeof(f->svc.settings.metrics_file), "%s/rpma-recv.prom",
		 dir);
	const uint64_t every = INTERVAL_MS * MS;
	snprintf(want, sizeof(want),
		 "rpma: metrics file %s/rpma-recv.prom: its directory %s does "
		 "not exist: create it, or fix the path; trying again every "
		 "metrics-interval\n",
		 dir, dir);
	assert_string_equal(report_says(f, T0), want);
	assert_string_equal(report_says(f, T0 + every), "");
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(want, sizeof(want),
		 "rpma: metrics file %s/rpma-recv.prom written again\n", dir);
	assert_string_equal(report_says(f, T0 + 2 * every), want);
	assert_int_equal(committed_said(f), 1000);
	assert_string_equal(report_says(f, T0 + 3 * every), "");
}

int main(void)
{
#define TEST(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
	    TEST(the_status_line_names_the_logs_served_in_order),
	    TEST(the_metrics_file_holds_every_log_and_the_receiver),
	    TEST(the_metrics_file_is_written_each_interval),
	    TEST(a_file_not_written_is_said_once_and_its_return),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
