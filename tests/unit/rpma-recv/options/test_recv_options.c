/* rpma-recv's options that are not settings (options/recv_options.c), row by
 * row: name, flag, argument, what each sets, each refusal's line; and the
 * whole command line's options as argp gets them: these rows, then the
 * settings' flags as its child. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/option_value.h"
#include "error.h"
#include "options/recv_args.h"
#include "options/recv_options.h"
#include "options/recv_parse.h"
#include "settings/table.h"

#include <stdio.h>
#include <string.h>

struct expected {
	const char *name;
	char short_flag;
	const char *arg;
	bool optional;
};

/* rpma-recv(1) and --help, in --help's first group. */
static const struct expected expected[] = {
    {"log", 0, "NAME=POOL", false},
    {"config", 0, "FILE", false},
    {"check-config", 0, "FILE", true},
    {"info", 'i', 0, false},
    {"export", 0, "FILE", false},
    {"reload", 0, "PID", false},
    {"once", 0, 0, false},
    {"quiet", 'q', 0, false},
    {"verbose", 'v', 0, false},
};
#define NEXPECTED (sizeof(expected) / sizeof(*expected))

static struct recv_args a; /* large */

/* What giving name arg says: "" when it is taken. */
static const char *give(const char *name, const char *arg)
{
	static struct rs_error err;
	memset(&err, 0, sizeof(err));
	const struct cli_option *row = cli_option_find(&recv_options, name);
	assert_non_null(row);
	int rc = cli_option_parse(row, &a, arg, &err);
	assert_int_equal(rc != 0, err.msg[0] != 0);
	return err.msg;
}

static void rows_as_documented(void **state)
{
	(void)state;
	assert_int_equal(recv_options.nrows, NEXPECTED);
	for (size_t i = 0; i < NEXPECTED; i++) {
		const struct cli_option *row = &recv_options.rows[i];
		const struct expected *e = &expected[i];
		assert_string_equal(row->name, e->name);
		assert_int_equal(row->short_flag, e->short_flag);
		assert_true(row->arg ? e->arg && !strcmp(row->arg, e->arg)
				     : !e->arg);
		assert_int_equal(row->arg_optional, e->optional);
		assert_false(row->file_only);
		assert_non_null(row->help);
		assert_ptr_equal(
		    cli_option_by_key(&recv_options,
				      cli_option_key(&recv_options, row)),
		    row);
		/* no key of a setting's flag is one of these */
		assert_null(cli_option_by_key(
		    &settings_table, cli_option_key(&recv_options, row)));
	}
}

/* argp's options: these rows, then the settings' flags as a child. */
static void argp_has_both_tables(void **state)
{
	(void)state;
	const struct argp *argp = recv_options_argp();
	size_t n = 0;
	for (const struct argp_option *o = argp->options; o->name; o++)
		assert_string_equal(o->name, expected[n++].name);
	assert_int_equal(n, NEXPECTED);
	assert_non_null(argp->children);
	n = 0;
	for (const struct argp_option *o = argp->children[0].argp->options;
	     o->name; o++)
		n++;
	size_t flags = 0;
	for (size_t i = 0; i < settings_table.nrows; i++)
		flags += !settings_table.rows[i].file_only;
	assert_int_equal(n, flags);
	assert_null(argp->children[1].argp);
}

static void modes_and_files(void **state)
{
	(void)state;
	recv_args_init(&a);
	assert_int_equal(a.level, RS_LOG_NORMAL);
	assert_int_equal(a.flags.globals.credits, 8); /* settings' defaults */
	assert_string_equal(give("info", 0), "");
	assert_true(a.info);
	assert_string_equal(give("once", 0), "");
	assert_true(a.once);
	assert_string_equal(give("quiet", 0), "");
	assert_int_equal(a.level, RS_LOG_QUIET);
	assert_string_equal(give("verbose", 0), "");
	assert_int_equal(a.level, RS_LOG_VERBOSE);
	assert_string_equal(give("config", "/etc/x.conf"), "");
	assert_string_equal(a.config, "/etc/x.conf");
	assert_string_equal(give("config", ""),
			    "--config: an empty FILE name; give the "
			    "configuration file");
	assert_string_equal(give("export", "-"), "");
	assert_string_equal(a.export_file, "-");
	assert_string_equal(give("export", ""),
			    "--export: an empty FILE name; give a file, or - "
			    "for standard output");
	assert_false(a.check);
	assert_string_equal(give("check-config", 0), "");
	assert_true(a.check);
	assert_null(a.check_file);
	assert_string_equal(give("check-config", "f.conf"), "");
	assert_string_equal(a.check_file, "f.conf");
	assert_string_equal(give("check-config", ""),
			    "--check-config: an empty FILE name; give the "
			    "configuration file, or no '='");
	assert_string_equal(give("reload", "4242"), "");
	assert_int_equal(a.reload_pid, 4242);
	assert_string_equal(give("reload", "0"),
			    "--reload: '0' must be a number from 1 to "
			    "2147483647");
}

static void logs_named(void **state)
{
	(void)state;
	recv_args_init(&a);
	assert_string_equal(give("log", "app=/mnt/pmem/app.pool"), "");
	assert_int_equal(a.nnamed, 1);
	assert_string_equal(a.named[0], "app=/mnt/pmem/app.pool");
	assert_string_equal(give("log", "=x"),
			    "--log '=x': give NAME=POOL, e.g. "
			    "app=/mnt/pmem/app.pool");
	assert_string_equal(give("log", "app"),
			    "--log 'app': give NAME=POOL, e.g. "
			    "app=/mnt/pmem/app.pool");
	assert_int_equal(a.nnamed, 1);
	for (unsigned i = 1; i < RECV_CLI_LOGS_MAX; i++)
		assert_string_equal(give("log", "l=p"), "");
	char want[32];
	snprintf(want, sizeof(want), "--log: at most %d", RECV_CLI_LOGS_MAX);
	assert_string_equal(give("log", "l=p"), want);
	assert_int_equal(a.nnamed, RECV_CLI_LOGS_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(rows_as_documented),
	    cmocka_unit_test(argp_has_both_tables),
	    cmocka_unit_test(modes_and_files),
	    cmocka_unit_test(logs_named),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
