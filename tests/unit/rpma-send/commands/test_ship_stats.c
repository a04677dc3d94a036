/* A stream's --stats lines (commands/ship_stats.h): the run's line with
 * its counts, rate and percentiles, a line per replica only when there are
 * several, then the phases, all ending at one instant: total_seconds and
 * the phases count from main. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "commands/ship_stats.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What ship_stats_print writes for r, main entered 2 s ago. */
static char *print(const struct ship_result *r)
{
	static char text[8192];
	FILE *f = fmemopen(text, sizeof(text), "w");
	assert_non_null(f);
	static const struct rs_session_times never; /* no session */
	struct send_phases times = {
	    .main_ns = send_stats_now_ns() - 2000000000ull, .session = &never};
	ship_stats_print(f, r, &times);
	fclose(f);
	return text;
}

static void one_replica(void **state)
{
	(void)state;
	static struct ship_result r;
	memset(&r, 0, sizeof(r));
	r.method = RS_METHOD_GPSPM;
	r.nreplicas = 1;
	r.stats.first_post_ns = 1000000000ull;
	r.stats.last_commit_ns = 3000000000ull; /* 2 s streaming */
	for (int i = 0; i < 100; i++)
		send_stats_commit(&r.stats, 1u << 20, 100000, 0); /* 100 us */
	r.stats.last_commit_ns = 3000000000ull;
	const char *out = print(&r);
	assert_non_null(strstr(out, "rpma-send: stats: bytes=104857600 "
				    "batches=100 seconds=2.000 MBps=52.43 "));
	assert_non_null(strstr(out, " method=gpspm total_seconds=2.0"));
	const char *p50 = strstr(out, "commit_us_p50=");
	assert_non_null(p50);
	double us = atof(p50 + strlen("commit_us_p50="));
	assert_true(us >= 100 && us <= 112.5); /* its bucket's upper edge */
	assert_null(strstr(out, "replica="));
	/* the phases' line follows */
	const char *second = strchr(out, '\n');
	assert_non_null(second);
	assert_non_null(strstr(second + 1, "rpma-send: stats: phases_ms"));
}

static void several_replicas(void **state)
{
	(void)state;
	static struct ship_result r;
	memset(&r, 0, sizeof(r));
	r.nreplicas = 2;
	snprintf(r.replicas[0].label, sizeof(r.replicas[0].label), "a:7204");
	snprintf(r.replicas[1].label, sizeof(r.replicas[1].label), "b:7204");
	r.replicas[0].state = "active";
	r.replicas[1].state = "dropped";
	r.replicas[1].committed = 4096;
	r.replicas[1].lag = 512;
	const char *out = print(&r);
	assert_non_null(strstr(out, "rpma-send: stats: bytes=0 batches=0 "
				    "seconds=0.000 MBps=0.00 "));
	assert_non_null(strstr(out,
			       "rpma-send: stats: replica=a:7204 state=active "
			       "bytes=0 lag=0 "));
	assert_non_null(strstr(out,
			       "rpma-send: stats: replica=b:7204 state=dropped "
			       "bytes=4096 lag=512 "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(one_replica),
	    cmocka_unit_test(several_replicas),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
