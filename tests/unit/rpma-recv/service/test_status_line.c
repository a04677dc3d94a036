/* The text of rpma-recv's `systemctl status` line: singular and plural,
 * the names in order and capped with "and N more", a name too long for the
 * line, the bytes committed, and the longest line there can be. (Sending it:
 * test_sd_notify.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "service/status_line.h"
#include "settings/settings.h"

static void expect_text(unsigned nlogs, const char *const *names,
			unsigned senders, const char *want)
{
	struct recv_status st = {.nlogs = nlogs,
				 .names = names,
				 .nnames = nlogs,
				 .senders = senders};
	char text[RECV_STATUS_TEXT_MAX];
	recv_status_text(&st, text, sizeof(text));
	assert_string_equal(text, want);
}

static void singular_and_plural(void **state)
{
	(void)state;
	const char *const names[] = {"app", "audit", "web"};
	expect_text(1, names, 0,
		    "serving 1 log (app), 0 senders connected, 0 B committed");
	expect_text(1, names, 1,
		    "serving 1 log (app), 1 sender connected, 0 B committed");
	expect_text(
	    2, names, 1,
	    "serving 2 logs (app, audit), 1 sender connected, 0 B committed");
	expect_text(3, names, 2,
		    "serving 3 logs (app, audit, web), 2 senders connected, 0 "
		    "B committed");
	expect_text(0, names, 0,
		    "serving 0 logs, 0 senders connected, 0 B committed");
}

static void names_capped(void **state)
{
	(void)state;
	const char *const names[] = {"a", "b", "c", "d", "e"};
	expect_text(4, names, 3,
		    "serving 4 logs (a, b, c and 1 more), 3 senders connected, "
		    "0 B committed");
	expect_text(5, names, 3,
		    "serving 5 logs (a, b, c and 2 more), 3 senders connected, "
		    "0 B committed");
}

/* The unnamed log (`rpma-recv POOL`) shows its pool, unless the path is
 * too long for the line: then no name. */
static void long_names(void **state)
{
	(void)state;
	const char *const pool[] = {"/mnt/pmem/app.pool"};
	expect_text(1, pool, 1,
		    "serving 1 log (/mnt/pmem/app.pool), 1 sender connected, 0 "
		    "B committed");
	char path[PATH_MAX];
	memset(path, 'p', 300);
	path[0] = '/';
	path[300] = '\0';
	const char *const long_pool[] = {path};
	expect_text(1, long_pool, 1,
		    "serving 1 log, 1 sender connected, 0 B committed");
	const char *const some_long[] = {"app", path, "web"};
	expect_text(3, some_long, 0,
		    "serving 3 logs (app and 2 more), 0 senders connected, 0 B "
		    "committed");
}

/* As many logs and senders as there can be, each name of the longest:
 * the whole line fits. */
static void longest_line_fits(void **state)
{
	(void)state;
	char name[RS_LOG_NAME_MAX + 1];
	memset(name, 'n', RS_LOG_NAME_MAX);
	name[RS_LOG_NAME_MAX] = '\0';
	const char *names[RECV_LOGS_MAX];
	for (unsigned i = 0; i < RECV_LOGS_MAX; i++)
		names[i] = name;
	struct recv_status st = {.nlogs = RECV_LOGS_MAX,
				 .names = names,
				 .nnames = RECV_LOGS_MAX,
				 .senders = RECV_MAX_SENDERS_MAX};
	st.committed = UINT64_MAX;
	char text[RECV_STATUS_TEXT_MAX], want[RECV_STATUS_TEXT_MAX];
	recv_status_text(&st, text, sizeof(text));
	snprintf(want, sizeof(want),
		 "serving %d logs (%s, %s, %s and %d more), %d senders "
		 "connected, 16777216.0 TiB committed",
		 RECV_LOGS_MAX, name, name, name, RECV_LOGS_MAX - 3,
		 RECV_MAX_SENDERS_MAX);
	assert_string_equal(text, want);
}

/* The bytes committed since the start, over all logs, as a size. */
static void committed_bytes(void **state)
{
	(void)state;
	const char *const names[] = {"app"};
	struct recv_status st = {
	    .nlogs = 1, .names = names, .nnames = 1, .senders = 1};
	char text[RECV_STATUS_TEXT_MAX];
	st.committed = 4u << 20;
	recv_status_text(&st, text, sizeof(text));
	assert_string_equal(
	    text, "serving 1 log (app), 1 sender connected, 4.0 MiB committed");
	st.committed = 1536;
	recv_status_text(&st, text, sizeof(text));
	assert_string_equal(
	    text, "serving 1 log (app), 1 sender connected, 1.5 KiB committed");
}

/* With the logs' usage: each shown log's fill, and what its archive
 * holds when it holds anything; the longest such line fits. */
static void usage_shown(void **state)
{
	(void)state;
	const char *const names[] = {"app", "audit", "web", "db"};
	const struct recv_status_log usage[] = {
	    {.fill = 41, .archived = 3u << 29}, {.fill = 0}, {.fill = 100}};
	struct recv_status st = {.nlogs = 4,
				 .names = names,
				 .usage = usage,
				 .nnames = 4,
				 .senders = 1,
				 .committed = 4u << 20};
	char text[RECV_STATUS_TEXT_MAX];
	recv_status_text(&st, text, sizeof(text));
	assert_string_equal(text,
			    "serving 4 logs (app 41% +1.5 GiB archived, audit "
			    "0%, web 100% and 1 more), 1 sender connected, "
			    "4.0 MiB committed");

	char name[RS_LOG_NAME_MAX + 1];
	memset(name, 'n', RS_LOG_NAME_MAX);
	name[RS_LOG_NAME_MAX] = '\0';
	const char *longest[RECV_LOGS_MAX];
	struct recv_status_log most[RECV_LOGS_MAX];
	for (unsigned i = 0; i < RECV_LOGS_MAX; i++) {
		longest[i] = name;
		most[i] = (struct recv_status_log){.fill = 100,
						   .archived = UINT64_MAX};
	}
	st = (struct recv_status){.nlogs = RECV_LOGS_MAX,
				  .names = longest,
				  .usage = most,
				  .nnames = RECV_LOGS_MAX,
				  .senders = RECV_MAX_SENDERS_MAX,
				  .committed = UINT64_MAX};
	recv_status_text(&st, text, sizeof(text));
	char one[128], want[RECV_STATUS_TEXT_MAX];
	snprintf(one, sizeof(one), "%s 100%% +16777216.0 TiB archived", name);
	snprintf(want, sizeof(want),
		 "serving %d logs (%s, %s, %s and %d more), %d senders "
		 "connected, 16777216.0 TiB committed",
		 RECV_LOGS_MAX, one, one, one, RECV_LOGS_MAX - 3,
		 RECV_MAX_SENDERS_MAX);
	assert_string_equal(text, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(singular_and_plural),
	    cmocka_unit_test(names_capped),
	    cmocka_unit_test(usage_shown),
	    cmocka_unit_test(long_names),
	    cmocka_unit_test(longest_line_fits),
	    cmocka_unit_test(committed_bytes),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
