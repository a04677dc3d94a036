/* The receiver's counters (metrics/counters.h) and their metrics file
 * (metrics/metrics.h): which persist-time bucket a commit falls in, what a
 * refusal is counted as, the Prometheus text of a log (cumulative buckets,
 * escaped labels), the receiver's own figures, the file replaced whole, and
 * --info's reading of it back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "metrics/counters.h"
#include "metrics/metrics.h"
#include "proto/descriptor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void commits_fall_in_their_bucket(void **state)
{
	(void)state;
	static struct recv_log_counters c;
	recv_counters_committed(&c, 100, 10000);     /* 10 us: the first */
	recv_counters_committed(&c, 200, 10001);     /* just over: second */
	recv_counters_committed(&c, 300, 999999999); /* 1 s: the last */
	struct recv_log_counts n;
	recv_counters_read(&c, &n);
	assert_int_equal(n.persist_in[0], 1);
	assert_int_equal(n.persist_in[1], 1);
	assert_int_equal(n.persist_in[RECV_PERSIST_BUCKETS - 1], 1);
	assert_int_equal(n.committed_bytes, 600);
	assert_int_equal(n.commits, 3);
	assert_int_equal(n.persist_ns, 10000 + 10001 + 999999999);
}

static void refusals_by_reason(void **state)
{
	(void)state;
	assert_int_equal(recv_refusal_of(RS_REJECT_BUSY), RECV_REFUSED_BUSY);
	assert_int_equal(recv_refusal_of(RS_REJECT_NAME_NEEDED),
			 RECV_REFUSED_NO_SUCH_LOG);
	assert_int_equal(recv_refusal_of(RS_REJECT_LIMIT), RECV_REFUSED_LIMIT);
	assert_int_equal(recv_refusal_of(RS_REJECT_STOPPING),
			 RECV_REFUSED_BUSY);
	assert_int_equal(recv_refusal_of(250), RECV_REFUSED_INTERNAL);
	assert_string_equal(recv_refusal_name(RECV_REFUSED_NOT_ALLOWED),
			    "not_allowed");
	assert_string_equal(recv_refusal_name(RECV_REFUSED_AUTH), "auth");
}

static struct recv_metrics_log two_logs[2] = {
    {.name = "app",
     .pool = "/mnt/pmem/app.pool",
     .log_bytes = 1000,
     .used_bytes = 600},
    {.name = "", .pool = "/odd \"dir\"\\x.pool", .log_bytes = 9}};

static struct recv_metrics sample(void)
{
	two_logs[0].counts.committed_bytes = 600;
	two_logs[0].counts.commits = 2;
	two_logs[0].counts.persist_ns = 30000;
	two_logs[0].counts.persist_in[0] = 1; /* <= 10 us */
	two_logs[0].counts.persist_in[1] = 1; /* <= 25 us */
	two_logs[0].counts.senders = 1;
	two_logs[0].counts.refused[RECV_REFUSED_BUSY] = 3;
	struct recv_metrics m = {
	    .pid = 4242, .written = 1795000000.5, .logs = two_logs, .nlogs = 2};
	m.receiver = (struct recv_metrics_receiver){.senders = 1000,
						    .workers = 2,
						    .threads = 3,
						    .resident_bytes = 5 << 20,
						    .pinned_bytes = 7ull << 30};
	m.unrouted.refused[RECV_REFUSED_NO_SUCH_LOG] = 7;
	return m;
}

static char *rendered(const struct recv_metrics *m)
{
	char *text = 0;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	recv_metrics_render(f, m);
	fclose(f);
	return text;
}

static void has(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("no '%s' in:\n%s", line, text);
}

static void the_text_format(void **state)
{
	(void)state;
	struct recv_metrics m = sample();
	char *t = rendered(&m);
	has(t, "# TYPE rpma_recv_committed_bytes_total counter\n");
	has(t, "rpma_recv_committed_bytes_total{log=\"app\","
	       "pool=\"/mnt/pmem/app.pool\"} 600\n");
	/* buckets are cumulative, up to +Inf = the count */
	has(t, "rpma_recv_persist_seconds_bucket{log=\"app\","
	       "pool=\"/mnt/pmem/app.pool\",le=\"1e-05\"} 1\n");
	has(t, "rpma_recv_persist_seconds_bucket{log=\"app\","
	       "pool=\"/mnt/pmem/app.pool\",le=\"2.5e-05\"} 2\n");
	has(t, "rpma_recv_persist_seconds_bucket{log=\"app\","
	       "pool=\"/mnt/pmem/app.pool\",le=\"+Inf\"} 2\n");
	has(t, "rpma_recv_persist_seconds_sum{log=\"app\","
	       "pool=\"/mnt/pmem/app.pool\"} 0.000030000\n");
	has(t, "rpma_recv_refused_total{log=\"app\",pool=\"/mnt/pmem/"
	       "app.pool\",reason=\"busy\"} 3\n");
	has(t, "rpma_recv_refused_total{log=\"\",pool=\"\","
	       "reason=\"no_such_log\"} 7\n");
	/* a quote and a backslash in a label are escaped */
	has(t, "rpma_recv_log_size_bytes{log=\"\",pool=\"/odd \\\"dir\\\"\\\\"
	       "x.pool\"} 9\n");
	has(t, "rpma_recv_info{pid=\"4242\"} 1\n");
	/* the receiver's own figures: no labels */
	has(t, "# TYPE rpma_recv_senders_connected gauge\n"
	       "rpma_recv_senders_connected 1000\n");
	has(t, "rpma_recv_worker_threads 2\n");
	has(t, "rpma_recv_threads 3\n");
	has(t, "rpma_recv_resident_bytes 5242880\n");
	has(t, "rpma_recv_pinned_bytes 7516192768\n");
	free(t);
}

static void written_whole_and_read_back(void **state)
{
	(void)state;
	char dir[] = "/tmp/rs-test-metrics-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rpma-recv.prom", dir);
	struct recv_metrics m = sample();
	assert_int_equal(recv_metrics_write(path, &m, 0), 0);
	struct recv_metrics_found f;
	assert_int_equal(recv_metrics_find(path, "/mnt/pmem/app.pool", &f, 0),
			 0);
	assert_string_equal(f.name, "app");
	assert_int_equal(f.pid, 4242);
	assert_int_equal(f.counts.committed_bytes, 600);
	assert_int_equal(f.counts.commits, 2);
	assert_int_equal(f.counts.persist_ns, 30000);
	assert_int_equal(f.counts.senders, 1);
	assert_int_equal(f.counts.refused[RECV_REFUSED_BUSY], 3);
	assert_int_equal(f.receiver.senders, 1000);
	assert_int_equal(f.receiver.workers, 2);
	assert_int_equal(f.receiver.threads, 3);
	assert_int_equal(f.receiver.resident_bytes, 5 << 20);
	assert_int_equal(f.receiver.pinned_bytes, 7ull << 30);
	/* a pool whose name holds another's does not match */
	assert_int_equal(recv_metrics_find(path, "/mnt/pmem/app", &f, 0),
			 RS_E_INVAL);
	assert_int_equal(recv_metrics_find(path, "/odd \"dir\"\\x.pool", &f, 0),
			 0);
	/* no temporary left beside it */
	char tmp[96];
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	assert_int_equal(access(tmp, F_OK), -1);
	unlink(path);
	rmdir(dir);
	assert_int_equal(recv_metrics_write("/nonexistent/x.prom", &m, 0),
			 RS_E_IO);
}

/* A FIFO (or /dev/null, for a root service) given as the metrics file is
 * refused, not replaced by the rename. */
static void not_a_regular_file_is_left_alone(void **state)
{
	(void)state;
	char dir[] = "/tmp/rs-test-metrics-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	struct recv_metrics m = sample();
	struct rs_error err = {0};
	assert_int_equal(recv_metrics_write(path, &m, &err), RS_E_IO);
	assert_non_null(strstr(err.msg, "is a FIFO: give the path of a "
					"regular file"));
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(recv_metrics_path_check(dir, true, &err), RS_E_IO);
	assert_non_null(strstr(err.msg, "is a directory"));
	/* A directory not there yet: the service's, before its first start,
	 * for --check-config; not for a write. */
	snprintf(path, sizeof(path), "%s/not-yet/m.prom", dir);
	assert_int_equal(recv_metrics_path_check(path, true, &err), 0);
	assert_int_equal(recv_metrics_path_check(path, false, &err), RS_E_IO);
	assert_non_null(strstr(err.msg, "does not exist"));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(commits_fall_in_their_bucket),
	    cmocka_unit_test(refusals_by_reason),
	    cmocka_unit_test(the_text_format),
	    cmocka_unit_test(written_whole_and_read_back),
	    cmocka_unit_test(not_a_regular_file_is_left_alone),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
