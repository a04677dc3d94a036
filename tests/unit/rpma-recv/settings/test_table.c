/* The table of rpma-recv's settings (settings/table.h) against what the
 * man pages document, and what follows from each row: its range enforced
 * alike in the configuration file and as a flag (min - 1 and max + 1
 * refused with one message, min and max taken), its default the one the
 * program starts with, its flag in --help with its argument and default,
 * the flags over the file's globals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/endpoint.h"
#include "config/flags.h"
#include "error.h"
#include "proto/method.h"
#include "settings/settings.h"
#include "settings/table.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NONE UINT64_MAX /* no default, no min or max to test */

/* rpma-recv.conf(5) and rpma-recv(1), row by row. */
struct documented {
	const char *name;
	enum settings_scope scope;
	enum settings_reload reload;
	uint64_t min, max, def;
	const char *flag, *arg;
};

#define GLOBAL SETTINGS_GLOBAL
#define LOG SETTINGS_LOG
#define AT_ONCE SETTINGS_RELOAD_AT_ONCE
#define NEW_SESSIONS SETTINGS_RELOAD_NEW_SESSIONS
#define NEW_LOG SETTINGS_RELOAD_NEW_LOG
#define RESTART SETTINGS_RELOAD_RESTART

static const struct documented documented[] = {
    {"listen", GLOBAL, RESTART, NONE, NONE, NONE, "listen", "ADDR[:PORT]"},
    {"port", GLOBAL, RESTART, 1, 65535, 7204, 0, 0},
    {"credits", GLOBAL, RESTART, 1, 64, 8, "credits", "N"},
    {"staging-slot", GLOBAL, RESTART, 4 << 10, 1 << 30, 1 << 20, "staging-slot",
     "SIZE"},
    {"peer-timeout", GLOBAL, RESTART, 1000, 3600000, 10000, "peer-timeout",
     "SECONDS"},
    {"max-senders", GLOBAL, AT_ONCE, 1, 1024, 1024, "max-senders", "N"},
    {"workers", GLOBAL, RESTART, 0, 1024, 0, "workers", "N"},
    {"busy-poll", GLOBAL, RESTART, NONE, NONE, 0, "busy-poll", 0},
    {"metrics-file", GLOBAL, AT_ONCE, NONE, NONE, NONE, "metrics-file", "FILE"},
    {"metrics-interval", GLOBAL, AT_ONCE, 1000, 3600000, 15000,
     "metrics-interval", "SECONDS"},
    {"pool", LOG, NEW_LOG, NONE, NONE, NONE, 0, 0},
    {"create", LOG, RESTART, 2 << 20, UINT64_MAX, 0, "create", "SIZE"},
    {"allow", LOG, NEW_SESSIONS, NONE, NONE, NONE, "allow", "CIDR"},
    {"auth-key", LOG, NEW_SESSIONS, NONE, NONE, NONE, "auth-key", "FILE"},
    {"methods", LOG, NEW_SESSIONS, NONE, NONE, RS_METHOD_ALL, 0, 0},
    {"direct-write-to-pmem", LOG, RESTART, NONE, NONE, 0,
     "direct-write-to-pmem", 0},
    {"append-only", LOG, RESTART, NONE, NONE, 0, "append-only", 0},
    {"archive", LOG, RESTART, NONE, NONE, NONE, "archive", "DIR"},
    {"rotate-at", LOG, RESTART, 10, 95, 75, "rotate-at", "PERCENT"},
    {"archive-keep", LOG, RESTART, 0, 1000000, 0, "archive-keep", "COUNT"},
    {"archive-max", LOG, RESTART, 0, UINT64_MAX, 0, "archive-max", "SIZE"},
};
#define NDOCUMENTED (sizeof(documented) / sizeof(*documented))

static char dir[] = "/tmp/rs-test-table-XXXXXX";

static bool numeric(const struct cli_option *row)
{
	return row->type == CLI_OPTION_COUNT || row->type == CLI_OPTION_PORT ||
	       row->type == CLI_OPTION_SIZE ||
	       row->type == CLI_OPTION_DURATION ||
	       row->type == CLI_OPTION_PERCENT;
}

static const struct documented *doc_of(const struct cli_option *row)
{
	for (size_t i = 0; i < NDOCUMENTED; i++)
		if (!strcmp(documented[i].name, row->name))
			return &documented[i];
	fail_msg("row %s is not documented here", row->name);
	return 0;
}

/* The number in the row's field of owner, read as the test sees it. */
static uint64_t number_in(const struct cli_option *row, const void *owner)
{
	const char *field = (const char *)owner + row->offset;
	if (row->type == CLI_OPTION_PORT)
		return strtoull(field, 0, 10);
	if (row->type == CLI_OPTION_BOOL)
		return *(const bool *)field;
	uint64_t v = 0;
	assert_true(row->size <= sizeof(v));
	memcpy(&v, field, row->size); /* little-endian, as on the host */
	return v;
}

static void *owner_of(const struct cli_option *row, struct recv_settings *s,
		      struct recv_log_settings *log)
{
	return row->scope == SETTINGS_GLOBAL ? (void *)s : (void *)log;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/a.pool", dir);
	int fd = open(path, O_WRONLY | O_CREAT, 0600);
	return fd < 0 ? -1 : close(fd);
}

static int teardown(void **state)
{
	(void)state;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/a.pool", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/test.conf", dir);
	unlink(path);
	return rmdir(dir);
}

/* The table holds the documented rows, in the documented order (the
 * order messages list the keys in), with their scope, reload rule, range,
 * flag and its argument. */
static void table_as_documented(void **state)
{
	(void)state;
	assert_int_equal(settings_table.nrows, NDOCUMENTED);
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		const struct documented *d = &documented[i];
		assert_string_equal(row->name, d->name);
		assert_int_equal(row->scope, d->scope);
		assert_int_equal(row->reload, d->reload);
		assert_ptr_equal(cli_option_find(&settings_table, d->name),
				 row);
		assert_int_equal(settings_row_index(row), i);
		if (numeric(row)) {
			assert_int_equal(row->min, d->min);
			assert_int_equal(row->max, d->max);
		}
		if (d->flag) {
			assert_false(row->file_only);
			assert_string_equal(row->name, d->flag);
			assert_true(row->arg
					? d->arg && !strcmp(row->arg, d->arg)
					: !d->arg);
		} else {
			assert_true(row->file_only);
		}
		assert_non_null(row->help);
	}
	assert_null(cli_option_find(&settings_table, "no-such-key"));
}

/* Every number fits its field, and every row lies within its struct. */
static void fields_hold_the_range(void **state)
{
	(void)state;
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		size_t whole = row->scope == SETTINGS_GLOBAL
				   ? sizeof(struct recv_settings)
				   : sizeof(struct recv_log_settings);
		assert_true(row->size > 0 && row->offset + row->size <= whole);
		if (!numeric(row) || row->type == CLI_OPTION_PORT ||
		    row->size == 8)
			continue;
		assert_true(row->max < (UINT64_C(1) << (8 * row->size)));
	}
}

/* ---- defaults ---- */

static void expect_defaults(const struct recv_settings *s,
			    const struct recv_log_settings *log)
{
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		const struct documented *d = doc_of(row);
		const void *owner = row->scope == SETTINGS_GLOBAL
					? (const void *)s
					: (const void *)log;
		if (d->def != NONE &&
		    (numeric(row) || row->type == CLI_OPTION_BOOL))
			assert_int_equal(number_in(row, owner), d->def);
	}
	assert_string_equal(s->listen.host, "");
	assert_string_equal(s->listen.port, RS_DEFAULT_PORT);
	assert_int_equal(log->methods, RS_METHOD_ALL);
	assert_int_equal(log->nallow, 0);
	assert_string_equal(log->auth_key_path, "");
}

/* The program starts with the documented defaults: the settings' own,
 * the command line's, and a file that sets nothing but a log. */
static void defaults(void **state)
{
	(void)state;
	struct recv_settings s;
	struct recv_log_settings log;
	recv_settings_init(&s);
	recv_log_settings_init(&log);
	expect_defaults(&s, &log);

	static struct settings_flags f;
	settings_flags_init(&f);
	expect_defaults(&f.globals, &f.log);
	assert_int_equal(f.given, 0);

	char path[PATH_MAX], text[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/test.conf", dir);
	snprintf(text, sizeof(text), "[a]\npool = %s/a.pool\n", dir);
	FILE *file = fopen(path, "w");
	assert_non_null(file);
	fputs(text, file);
	fclose(file);
	struct rs_error err = {0};
	assert_int_equal(recv_settings_load(path, &s, &err), 0);
	assert_int_equal(s.nlogs, 1);
	expect_defaults(&s, &s.logs[0]);
	recv_settings_free(&s);
}

/* ---- ranges ---- */

static void text_of(const struct cli_option *row, uint64_t v, char *buf,
		    size_t len)
{
	snprintf(buf, len, "%llu%s", (unsigned long long)v,
		 row->type == CLI_OPTION_DURATION ? "ms" : "");
}

/* Loads `key = text` (global, or in [a] on line 3) into *s: its rc. */
static int file_load(const struct cli_option *row, const char *text,
		     struct recv_settings *s, struct rs_error *err)
{
	char path[PATH_MAX], conf[2 * PATH_MAX];
	snprintf(path, sizeof(path), "%s/test.conf", dir);
	if (row->scope == SETTINGS_GLOBAL)
		snprintf(conf, sizeof(conf), "%s = %s\n[a]\npool = %s/a.pool\n",
			 row->name, text, dir);
	else
		snprintf(conf, sizeof(conf), "[a]\npool = %s/a.pool\n%s = %s\n",
			 dir, row->name, text);
	FILE *file = fopen(path, "w");
	assert_non_null(file);
	fputs(conf, file);
	fclose(file);
	recv_settings_init(s);
	memset(err, 0, sizeof(*err));
	return recv_settings_load(path, s, err);
}

static void expect_starts(const char *msg, const char *start)
{
	if (strncmp(msg, start, strlen(start)))
		fail_msg("want '%s...'\n got '%s'", start, msg);
}

static void file_case(const struct cli_option *row, uint64_t v, bool taken)
{
	char text[32], want[PATH_MAX + 64];
	text_of(row, v, text, sizeof(text));
	struct recv_settings s;
	struct rs_error err;
	int rc = file_load(row, text, &s, &err);
	if (taken) {
		if (rc)
			fail_msg("%s = %s refused: %s", row->name, text,
				 err.msg);
		assert_int_equal(number_in(row, owner_of(row, &s, s.logs)), v);
	} else {
		assert_int_equal(rc, RS_E_INVAL);
		snprintf(want, sizeof(want),
			 "%s/test.conf:%d: %s '%s' must be ", dir,
			 row->scope == SETTINGS_GLOBAL ? 1 : 3, row->name,
			 text);
		expect_starts(err.msg, want);
	}
	recv_settings_free(&s);
}

static void flag_case(const struct cli_option *row, uint64_t v, bool taken)
{
	static struct settings_flags f;
	char text[32], want[64];
	text_of(row, v, text, sizeof(text));
	settings_flags_init(&f);
	void *owner = owner_of(row, &f.globals, &f.log);
	uint64_t before = number_in(row, owner);
	struct rs_error err = {0};
	int rc = settings_flags_parse(&f, row, text, &err);
	if (taken) {
		if (rc)
			fail_msg("--%s %s refused: %s", row->name, text,
				 err.msg);
		assert_int_equal(number_in(row, owner), v);
	} else {
		assert_int_equal(rc, RS_E_INVAL);
		snprintf(want, sizeof(want), "--%s: '%s' must be ", row->name,
			 text);
		expect_starts(err.msg, want);
		assert_int_equal(number_in(row, owner), before);
	}
}

/* min and max taken, min - 1 and max + 1 refused (where there are such
 * numbers), from the file and from the flag, each with its own min. */
static void ranges(void **state)
{
	(void)state;
	unsigned rows = 0;
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		if (!numeric(row))
			continue;
		rows++;
		for (int flag = 0; flag < 2; flag++) {
			if (flag && row->file_only)
				continue;
			void (*one)(const struct cli_option *, uint64_t, bool) =
			    flag ? flag_case : file_case;
			uint64_t min =
			    settings_row_min(row, flag ? SETTINGS_FROM_FLAG
						       : SETTINGS_FROM_FILE);
			if (min > 0)
				one(row, min - 1, false);
			one(row, min, true);
			one(row, row->max, true);
			if (row->max < UINT64_MAX)
				one(row, row->max + 1, false);
		}
	}
	assert_int_equal(rows, 11);
}

/* yes or no in the file, a flag without argument says yes. */
static void booleans(void **state)
{
	(void)state;
	static struct settings_flags f;
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		if (row->type != CLI_OPTION_BOOL)
			continue;
		struct recv_settings s;
		struct rs_error err;
		assert_int_equal(file_load(row, "yes", &s, &err), 0);
		assert_true(number_in(row, owner_of(row, &s, s.logs)));
		recv_settings_free(&s);
		assert_int_equal(file_load(row, "No", &s, &err), 0);
		assert_false(number_in(row, owner_of(row, &s, s.logs)));
		recv_settings_free(&s);
		assert_int_equal(file_load(row, "maybe", &s, &err), RS_E_INVAL);
		assert_non_null(strstr(err.msg, "'maybe' must be yes or no"));
		settings_flags_init(&f);
		assert_null(row->arg);
		assert_int_equal(settings_flags_parse(&f, row, 0, &err), 0);
		assert_true(number_in(row, owner_of(row, &f.globals, &f.log)));
	}
}

/* ---- the flags ---- */

static void expect_flag_error(const char *flag, const char *arg,
			      const char *message)
{
	static struct settings_flags f;
	settings_flags_init(&f);
	const struct cli_option *row = 0;
	for (size_t i = 0; i < settings_table.nrows && !row; i++)
		if (!settings_table.rows[i].file_only &&
		    !strcmp(settings_table.rows[i].name, flag))
			row = &settings_table.rows[i];
	assert_non_null(row);
	struct rs_error err = {0};
	assert_int_equal(settings_flags_parse(&f, row, arg, &err), RS_E_INVAL);
	assert_string_equal(err.msg, message);
}

/* The file's messages, naming the flag, with the kind left to its
 * argument's name; what is not of the kind says so. */
static void flag_messages(void **state)
{
	(void)state;
	expect_flag_error("credits", "0", "--credits: '0' must be 1 to 64");
	expect_flag_error("credits", "+5",
			  "--credits: '+5' must be 1 to 64; '+5' is not a "
			  "number");
	expect_flag_error("staging-slot", "2K",
			  "--staging-slot: '2K' must be 4K to 1G, like 1M");
	expect_flag_error("peer-timeout", "61m",
			  "--peer-timeout: '61m' must be 1 s to 1 hour, like "
			  "10s or 2m");
	expect_flag_error("peer-timeout", "soon",
			  "--peer-timeout: 'soon' must be 1 s to 1 hour, like "
			  "10s or 2m; 'soon' is not a duration");
	expect_flag_error("create", "lots",
			  "--create: 'lots' must be at least 1, like 1G; "
			  "'lots' is not a size");
	expect_flag_error("listen", "[fe80::1",
			  "--listen: '[fe80::1': missing ']' after IPv6 "
			  "address; write an address like 192.0.2.1 or "
			  "[2001:db8::1]");
	expect_flag_error("allow", "192.0.2.0/33",
			  "--allow: '192.0.2.0/33': prefix length out of "
			  "range; write a range like 192.0.2.0/24 or "
			  "2001:db8::/32, or one address");
}

/* --listen takes a port, --allow a list, --auth-key a relative path
 * (loaded later, by main.c), --create any size. */
static void flag_values(void **state)
{
	(void)state;
	static struct settings_flags f;
	settings_flags_init(&f);
	struct rs_error err = {0};
	assert_int_equal(
	    settings_flags_parse(&f, cli_option_find(&settings_table, "listen"),
				 "[2001:db8::1]:7300", &err),
	    0);
	assert_string_equal(f.globals.listen.host, "2001:db8::1");
	assert_string_equal(f.globals.listen.port, "7300");
	const struct cli_option *allow =
	    cli_option_find(&settings_table, "allow");
	assert_int_equal(
	    settings_flags_parse(&f, allow, "192.0.2.0/24,10.0.0.1", &err), 0);
	assert_int_equal(settings_flags_parse(&f, allow, "fe80::/10", &err), 0);
	assert_int_equal(f.log.nallow, 3);
	for (unsigned i = 3; i < RECV_ALLOW_MAX; i++)
		assert_int_equal(
		    settings_flags_parse(&f, allow, "10.0.0.2", &err), 0);
	assert_int_equal(settings_flags_parse(&f, allow, "10.0.0.3", &err),
			 RS_E_INVAL);
	assert_string_equal(err.msg, "--allow: the command line has more than "
				     "32 allow ranges: merge some into wider "
				     "ones");
	assert_int_equal(settings_flags_parse(
			     &f, cli_option_find(&settings_table, "auth-key"),
			     "no/such.key", &err),
			 0);
	assert_string_equal(f.log.auth_key_path, "no/such.key");
	assert_int_equal(f.log.auth_key.len, 0);
	/* How a device-DAX, taken whole, is given: not a pool's size. */
	assert_int_equal(
	    settings_flags_parse(&f, cli_option_find(&settings_table, "create"),
				 "1", &err),
	    0);
	assert_int_equal(f.log.create_size, 1);
	assert_int_equal(f.given, 1u << settings_row_index(cli_option_find(
				      &settings_table, "listen")));
}

/* Only the globals given as flags replace the file's; --listen gives the
 * port too. */
static void flags_override_the_file(void **state)
{
	(void)state;
	static struct settings_flags f;
	settings_flags_init(&f);
	struct rs_error err = {0};
	assert_int_equal(
	    settings_flags_parse(
		&f, cli_option_find(&settings_table, "credits"), "5", &err),
	    0);
	assert_int_equal(
	    settings_flags_parse(&f, cli_option_find(&settings_table, "listen"),
				 "192.0.2.9", &err),
	    0);
	struct recv_settings s;
	recv_settings_init(&s);
	strcpy(s.listen.host, "192.0.2.1");
	strcpy(s.listen.port, "7300");
	s.credits = 16;
	s.max_senders = 3;
	s.staging_slot = 64 << 10;
	settings_flags_override(&f, &s);
	assert_int_equal(s.credits, 5);
	assert_string_equal(s.listen.host, "192.0.2.9");
	assert_string_equal(s.listen.port, RS_DEFAULT_PORT);
	assert_int_equal(s.max_senders, 3);
	assert_int_equal(s.staging_slot, 64 << 10);
}

static const struct argp_option *option_of(const char *name)
{
	const struct argp *argp = settings_flags_argp();
	for (const struct argp_option *o = argp->options; o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return 0;
}

static bool ends_with(const char *text, const char *end)
{
	size_t n = strlen(text), m = strlen(end);
	return n >= m && !strcmp(text + n - m, end);
}

/* One option per row with a flag, its argument's name, its help and the
 * default the program uses. */
static void help(void **state)
{
	(void)state;
	unsigned flags = 0, options = 0;
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		if (row->file_only)
			continue;
		flags++;
		const struct argp_option *o = option_of(row->name);
		assert_non_null(o);
		assert_ptr_equal(settings_flags_row(o->key), row);
		assert_true(o->arg ? row->arg && !strcmp(o->arg, row->arg)
				   : !row->arg);
		assert_true(!strncmp(o->doc, row->help, strlen(row->help)));
	}
	for (const struct argp_option *o = settings_flags_argp()->options;
	     o->name; o++)
		options++;
	assert_int_equal(options, flags);
	assert_true(ends_with(option_of("credits")->doc, " (default 8)"));
	assert_true(
	    ends_with(option_of("max-senders")->doc, " (default 1024)"));
	assert_true(ends_with(option_of("staging-slot")->doc, " (default 1M)"));
	assert_true(
	    ends_with(option_of("peer-timeout")->doc, " (default 10 s)"));
	assert_true(ends_with(option_of("listen")->doc,
			      " (default all addresses, port 7204)"));
	assert_null(strstr(option_of("create")->doc, "(default"));
	assert_null(strstr(option_of("busy-poll")->doc, "(default"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(table_as_documented),
	    cmocka_unit_test(fields_hold_the_range),
	    cmocka_unit_test(defaults),
	    cmocka_unit_test(ranges),
	    cmocka_unit_test(booleans),
	    cmocka_unit_test(flag_messages),
	    cmocka_unit_test(flag_values),
	    cmocka_unit_test(flags_override_the_file),
	    cmocka_unit_test(help),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
