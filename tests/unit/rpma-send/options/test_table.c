/* The table of rpma-send's options (options/table.h), row by row: its
 * name, flag, argument and modes, its default the one the program starts
 * with, its range enforced (min and max taken, one below and one above
 * refused with the same line as a word that is no number), the one-line
 * refusal of each bad value as rpma-send has always said it, and --help's
 * default where the row gives it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/log.h"
#include "cli/option_argp.h"
#include "cli/option_value.h"
#include "error.h"
#include "options/args.h"
#include "options/parse.h"
#include "options/table.h"
#include "proto/method.h"

#include <stdio.h>
#include <string.h>

#define NONE UINT64_MAX /* no default to test */
#define S SEND_MODE_SHIP
#define V SEND_MODE_VERIFY
#define F SEND_MODE_FETCH
#define ALL SEND_MODE_ALL

/* rpma-send(1) and --help, row by row, in --help's order. */
struct expected {
	const char *name;
	char short_flag;
	const char *arg;
	bool optional;
	unsigned modes;
	uint64_t def; /* in the field after send_args_init, NONE: no field */
	/* A number's range as typed: min and max taken, below and above
	 * (NULL: none) refused with "--NAME: 'VALUE' " and tail. */
	const char *min, *max, *below, *above, *tail;
	/* A bad value and its line (NULL: none to give). */
	const char *bad, *message;
	const char *help_default; /* how --help ends, NULL: as the row says */
};

#define SIZE_TAIL "must be a size from 1 to 1G (such as 64K or 1M)"
#define MS_TAIL(lo, hi)                                                        \
	"must be a duration from " lo " to " hi                                \
	" (such as 500ms, 5s or 2m; a "                                        \
	"bare number is milliseconds)"

static const struct expected expected[] = {
    {"method", 0, "apm|gpspm|staged|flush", false, S | V, NONE, 0, 0, 0, 0, 0,
     "x", "--method: 'x' is not apm, gpspm, staged or flush", 0},
    {"batch", 0, "SIZE", false, S | V, 1u << 20, "1", "1G", "0", "1073741825",
     SIZE_TAIL, "64K0", "--batch: '64K0' " SIZE_TAIL, " (default 1M)"},
    {"depth", 0, "N", false, S | V, 0, "1", "64", "0", "65",
     "must be a number from 1 to 64", "x",
     "--depth: 'x' must be a number from 1 to 64", 0},
    {"flush-interval", 0, "TIME", false, S | V, 5, "0", "60000", 0, "60001",
     MS_TAIL("0 ms", "1 min"), "-1",
     "--flush-interval: '-1' " MS_TAIL("0 ms", "1 min"),
     " (default 5ms; a bare number is milliseconds)"},
    {"truncate", 0, "in-place", true, S | V, NONE, 0, 0, 0, 0, 0, "x",
     "--truncate='x': give --truncate, or --truncate=in-place to rewind the "
     "log first",
     0},
    {"timeout", 0, "TIME", false, ALL, 5000, "1", "10m", "0", "600001",
     MS_TAIL("1 ms", "10 min"), "", "--timeout: '' " MS_TAIL("1 ms", "10 min"),
     " (default 5s; a bare number is milliseconds)"},
    {"follow", 'f', 0, false, S | F, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"rotate-wait", 0, "TIME", false, S, 5000, "0", "1h", 0, "3600001",
     MS_TAIL("0 ms", "1 hour"), "2h",
     "--rotate-wait: '2h' " MS_TAIL("0 ms", "1 hour"),
     " (default 5s; 0: at once, as tail -F)"},
    {"stop-wait", 0, "TIME", false, S, 5000, "0", "1h", 0, "3600001",
     MS_TAIL("0 ms", "1 hour"), "x",
     "--stop-wait: 'x' " MS_TAIL("0 ms", "1 hour"), " (default 5s)"},
    {"resume", 0, 0, false, S | F, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"auth-key", 0, "FILE", false, ALL, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"retry", 0, "N", false, ALL, 0, "0", "1000000", 0, "1000001",
     "must be a number from 0 to 1000000", " 5",
     "--retry: ' 5' must be a number from 0 to 1000000", 0},
    {"quorum", 0, "K", false, S | V, 0, "1", "16", "0", "17",
     "must be a number from 1 to 16", "x",
     "--quorum: 'x' must be a number from 1 to 16", 0},
    {"verify", 0, "hash|read", true, V, NONE, 0, 0, 0, 0, 0, "x",
     "--verify: 'x' is not hash or read", 0},
    {"fetch", 0, 0, false, F, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"from", 0, "BYTE|end", false, F, NONE, 0, 0, 0, 0, 0, "-1",
     "--from: '-1' must be a number from 0 to 18446744073709551615", 0},
    {"send", 0, 0, false, V, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"busy-poll", 0, 0, false, S | V, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"progress", 0, "always|commits", true, ALL, NONE, 0, 0, 0, 0, 0, "x",
     "--progress: 'x' is not always or commits", 0},
    {"stats", 0, 0, false, ALL, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {"quiet", 'q', 0, false, ALL, RS_LOG_NORMAL, 0, 0, 0, 0, 0, 0, 0, 0},
    {"verbose", 'v', 0, false, ALL, RS_LOG_NORMAL, 0, 0, 0, 0, 0, 0, 0, 0},
};
#define NEXPECTED (sizeof(expected) / sizeof(*expected))

/* The row's option in a, as argp's callback sets it. */
static int set_option(struct send_args *a, const struct cli_option *row,
		      const char *arg, struct rs_error *err)
{
	return cli_option_parse(row, a, arg, err);
}

/* The number in the row's field of a. */
static uint64_t number_in(const struct cli_option *row,
			  const struct send_args *a)
{
	uint64_t v = 0;
	assert_true(row->size <= sizeof(v));
	memcpy(&v, (const char *)a + row->offset,
	       row->size); /* little-endian */
	return v;
}

/* What parsing value as the row's option says: "" when it is taken. */
static const char *parse(const struct cli_option *row, const char *value)
{
	static struct rs_error err;
	struct send_args a;
	send_args_init(&a);
	memset(&err, 0, sizeof(err));
	int rc = set_option(&a, row, value, &err);
	assert_int_equal(rc != 0, err.msg[0] != 0);
	if (rc)
		assert_int_equal(rc, RS_E_INVAL);
	return err.msg;
}

static void table_as_documented(void **state)
{
	(void)state;
	assert_int_equal(send_options.nrows, NEXPECTED);
	for (size_t i = 0; i < NEXPECTED; i++) {
		const struct cli_option *row = &send_options.rows[i];
		const struct expected *e = &expected[i];
		assert_string_equal(row->name, e->name);
		assert_ptr_equal(cli_option_find(&send_options, e->name), row);
		assert_int_equal(row->short_flag, e->short_flag);
		if (e->arg)
			assert_string_equal(row->arg, e->arg);
		else
			assert_null(row->arg);
		assert_int_equal(row->arg_optional, e->optional);
		assert_int_equal(row->modes, e->modes);
		assert_ptr_equal(
		    cli_option_by_key(&send_options,
				      cli_option_key(&send_options, row)),
		    row);
		assert_non_null(row->help);
		/* A row sets something. */
		assert_true(row->size || row->handler);
	}
}

static void defaults(void **state)
{
	(void)state;
	struct send_args a;
	send_args_init(&a);
	assert_int_equal(a.level, RS_LOG_NORMAL);
	assert_int_equal(a.cfg.method, RS_METHOD_AUTO);
	for (size_t i = 0; i < NEXPECTED; i++) {
		const struct cli_option *row = &send_options.rows[i];
		if (expected[i].def == NONE || !row->size)
			continue;
		if (number_in(row, &a) != expected[i].def)
			fail_msg("--%s starts at %llu, not %llu", row->name,
				 (unsigned long long)number_in(row, &a),
				 (unsigned long long)expected[i].def);
	}
}

static void refused(const struct cli_option *row, const char *value,
		    const char *tail)
{
	char want[320];
	snprintf(want, sizeof(want), "--%s: '%s' %s", row->name, value, tail);
	assert_string_equal(parse(row, value), want);
}

static void ranges(void **state)
{
	(void)state;
	for (size_t i = 0; i < NEXPECTED; i++) {
		const struct cli_option *row = &send_options.rows[i];
		const struct expected *e = &expected[i];
		if (!e->tail)
			continue;
		assert_string_equal(parse(row, e->min), "");
		assert_string_equal(parse(row, e->max), "");
		if (e->below)
			refused(row, e->below, e->tail);
		if (e->above)
			refused(row, e->above, e->tail);
		refused(row, "x", e->tail);
	}
}

static void bad_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < NEXPECTED; i++) {
		const struct expected *e = &expected[i];
		if (e->bad)
			assert_string_equal(
			    parse(&send_options.rows[i], e->bad), e->message);
	}
}

/* A value for each option (0: it takes none). */
static const char *const args[][2] = {
    {"method", "gpspm"},
    {"batch", "64K"},
    {"depth", "8"},
    {"flush-interval", "2s"},
    {"truncate", "in-place"},
    {"timeout", "500ms"},
    {"follow", 0},
    {"rotate-wait", "0"},
    {"stop-wait", "750ms"},
    {"resume", 0},
    {"auth-key", "/k"},
    {"retry", "3"},
    {"quorum", "2"},
    {"verify", "read"},
    {"fetch", 0},
    {"from", "end"},
    {"send", 0},
    {"busy-poll", 0},
    {"progress", "always"},
    {"stats", 0},
    {"verbose", 0},
};

/* What each option sets, number or word. */
static void values_set(void **state)
{
	(void)state;
	struct send_args a;
	struct rs_error err = {0};
	send_args_init(&a);
	for (size_t i = 0; i < sizeof(args) / sizeof(*args); i++)
		assert_int_equal(
		    set_option(&a, cli_option_find(&send_options, args[i][0]),
			       args[i][1], &err),
		    0);
	assert_int_equal(a.cfg.method, RS_METHOD_GPSPM);
	assert_int_equal(a.cfg.batch_size, 64u << 10);
	assert_int_equal(a.cfg.depth, 8);
	assert_int_equal(a.cfg.flush_interval_ms, 2000);
	assert_true(a.cfg.truncate && a.cfg.truncate_in_place);
	assert_int_equal(a.cfg.connect_timeout_ms, 500);
	assert_true(a.follow && a.resume && a.fetch && a.send_first);
	assert_true(a.rotate_wait_given);
	assert_int_equal(a.rotate_wait_ms, 0);
	assert_true(a.stop_wait_given);
	assert_int_equal(a.cfg.stop_wait_ms, 750);
	assert_string_equal(a.auth_key_path, "/k");
	assert_int_equal(a.cfg.retries, 3);
	assert_int_equal(a.cfg.quorum, 2);
	assert_true(a.verify);
	assert_int_equal(a.verify_method, VERIFY_READ);
	assert_true(a.from_given && a.from.at_end);
	assert_true(a.cfg.busy_poll && a.stats);
	assert_true(a.cfg.progress && a.cfg.progress_forced);
	assert_int_equal(a.level, RS_LOG_VERBOSE);
	assert_int_equal(
	    set_option(&a, cli_option_find(&send_options, "quiet"), 0, &err),
	    0);
	assert_int_equal(a.level, RS_LOG_QUIET);
}

/* The optional arguments left out, --from a byte. */
static void values_left_out(void **state)
{
	(void)state;
	struct send_args a;
	struct rs_error err = {0};
	send_args_init(&a);
	assert_int_equal(
	    set_option(&a, cli_option_find(&send_options, "truncate"), 0, &err),
	    0);
	assert_true(a.cfg.truncate && !a.cfg.truncate_in_place);
	set_option(&a, cli_option_find(&send_options, "progress"), 0, &err);
	assert_true(a.cfg.progress && !a.cfg.progress_forced);
	assert_false(a.cfg.progress_commits);
	set_option(&a, cli_option_find(&send_options, "progress"), "commits",
		   &err);
	assert_true(a.cfg.progress_commits && a.cfg.progress_forced);
	set_option(&a, cli_option_find(&send_options, "verify"), 0, &err);
	assert_true(a.verify);
	assert_int_equal(a.verify_method, VERIFY_HASH);
	set_option(&a, cli_option_find(&send_options, "from"), "4096", &err);
	assert_true(a.from_given && !a.from.at_end);
	assert_int_equal(a.from.from, 4096);
}

static void help(void **state)
{
	(void)state;
	for (size_t i = 0; i < NEXPECTED; i++) {
		const struct cli_option *row = &send_options.rows[i];
		char buf[512], want[512];
		const char *h = cli_option_help(row, buf, sizeof(buf));
		if (!expected[i].help_default) {
			assert_ptr_equal(h, row->help);
			continue;
		}
		snprintf(want, sizeof(want), "%s%s", row->help,
			 expected[i].help_default);
		assert_string_equal(h, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(table_as_documented),
	    cmocka_unit_test(defaults),
	    cmocka_unit_test(ranges),
	    cmocka_unit_test(bad_values),
	    cmocka_unit_test(values_set),
	    cmocka_unit_test(values_left_out),
	    cmocka_unit_test(help),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
