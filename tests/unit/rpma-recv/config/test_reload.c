/* What a reload does with each setting (config/reload.h, which
 * service/service.c applies on SIGHUP), row by row, against rpma-recv.conf(5)'s
 * RELOADING: max-senders applies at once; allow, auth-key and methods to
 * a log's new connections; a log whose pool changes is served anew; every
 * other setting waits for a restart, and a log's such changes are named
 * for the warning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "config/reload.h"
#include "error.h"
#include "settings/settings.h"
#include "settings/table.h"
#include "settings/value.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/rs-test-reload-XXXXXX";

/* Two values of each key ('@' is the directory), and what the man page
 * says a reload does when the first changes to the second. */
static const struct sample {
	const char *name, *before, *after;
	enum settings_reload reload;
} samples[] = {
    {"listen", "192.0.2.1", "192.0.2.2", SETTINGS_RELOAD_RESTART},
    {"port", "7300", "7301", SETTINGS_RELOAD_RESTART},
    {"credits", "2", "3", SETTINGS_RELOAD_RESTART},
    {"staging-slot", "64K", "128K", SETTINGS_RELOAD_RESTART},
    {"peer-timeout", "5s", "6s", SETTINGS_RELOAD_RESTART},
    {"max-senders", "10", "11", SETTINGS_RELOAD_AT_ONCE},
    {"workers", "1", "2", SETTINGS_RELOAD_RESTART},
    {"busy-poll", "no", "yes", SETTINGS_RELOAD_RESTART},
    {"metrics-file", "@/a.prom", "@/b.prom", SETTINGS_RELOAD_AT_ONCE},
    {"metrics-interval", "15s", "20s", SETTINGS_RELOAD_AT_ONCE},
    {"pool", "@/a.pool", "@/b.pool", SETTINGS_RELOAD_NEW_LOG},
    {"create", "2M", "4M", SETTINGS_RELOAD_RESTART},
    {"allow", "192.0.2.0/24", "198.51.100.0/24", SETTINGS_RELOAD_NEW_SESSIONS},
    {"auth-key", "@/a.key", "@/b.key", SETTINGS_RELOAD_NEW_SESSIONS},
    {"methods", "apm", "staged", SETTINGS_RELOAD_NEW_SESSIONS},
    {"direct-write-to-pmem", "no", "yes", SETTINGS_RELOAD_RESTART},
    {"append-only", "no", "yes", SETTINGS_RELOAD_RESTART},
    {"archive", "@/a", "@/b", SETTINGS_RELOAD_RESTART},
    {"rotate-at", "75%", "80", SETTINGS_RELOAD_RESTART},
    {"archive-keep", "0", "10", SETTINGS_RELOAD_RESTART},
    {"archive-max", "0", "10G", SETTINGS_RELOAD_RESTART},
};

static void in_dir(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
}

static int key_write(const char *name, char fill)
{
	char path[PATH_MAX], bytes[32];
	in_dir(name, path, sizeof(path));
	memset(bytes, fill, sizeof(bytes));
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, bytes, sizeof(bytes));
	close(fd);
	return n == (ssize_t)sizeof(bytes) ? 0 : -1;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	return key_write("a.key", 'a') || key_write("b.key", 'b') ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	char path[PATH_MAX];
	in_dir("a.key", path, sizeof(path));
	unlink(path);
	in_dir("b.key", path, sizeof(path));
	unlink(path);
	return rmdir(dir);
}

static const struct sample *sample_of(const struct cli_option *row)
{
	for (size_t i = 0; i < sizeof(samples) / sizeof(*samples); i++)
		if (!strcmp(samples[i].name, row->name))
			return &samples[i];
	fail_msg("no sample of %s", row->name);
	return 0;
}

/* text, '@' for the directory, read into owner as a line of the file. */
static void set(const struct cli_option *row, const char *text, void *owner)
{
	char value[PATH_MAX];
	if (text[0] == '@')
		in_dir(text + 2, value, sizeof(value));
	else
		snprintf(value, sizeof(value), "%s", text);
	struct settings_input in = {row, SETTINGS_FROM_FILE, "x"};
	struct rs_error err = {0};
	if (settings_value_parse(&in, value, owner, &err))
		fail_msg("%s = %s: %s", row->name, value, err.msg);
}

/* A global: taken at once or kept; the other globals untouched. */
static void global_case(const struct cli_option *row, const struct sample *x)
{
	struct recv_settings in_force, next, before;
	recv_settings_init(&in_force);
	recv_settings_init(&next);
	set(row, x->before, &in_force);
	set(row, x->after, &next);
	assert_false(settings_value_equal(row, &in_force, &next));
	before = in_force;
	settings_reload_globals(&in_force, &next);
	bool taken = settings_value_equal(row, &in_force, &next);
	assert_int_equal(taken, x->reload == SETTINGS_RELOAD_AT_ONCE);
	assert_int_equal(taken, !settings_value_equal(row, &in_force, &before));
}

/* A log's: the log stays or is served anew; one that stays takes the new
 * value, or keeps its own and names the setting. */
static void log_case(const struct cli_option *row, const struct sample *x)
{
	struct recv_log_settings served, next, before;
	recv_log_settings_init(&served);
	recv_log_settings_init(&next);
	strcpy(served.name, "x");
	strcpy(next.name, "x");
	set(row, x->before, &served);
	set(row, x->after, &next);
	assert_false(settings_value_equal(row, &served, &next));
	assert_true(settings_reload_same_log(&served, &served));
	bool same = settings_reload_same_log(&served, &next);
	assert_int_equal(same, x->reload != SETTINGS_RELOAD_NEW_LOG);
	if (!same)
		return;
	before = served;
	char changed[128];
	unsigned n =
	    settings_reload_log(&served, &next, changed, sizeof(changed));
	if (x->reload == SETTINGS_RELOAD_RESTART) {
		assert_int_equal(n, 1);
		assert_string_equal(changed, row->name);
		assert_true(settings_value_equal(row, &served, &before));
	} else {
		assert_int_equal(n, 0);
		assert_string_equal(changed, "");
		assert_true(settings_value_equal(row, &served, &next));
	}
}

static void every_row(void **state)
{
	(void)state;
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		const struct sample *x = sample_of(row);
		assert_int_equal(row->reload, x->reload);
		if (row->scope == SETTINGS_GLOBAL)
			global_case(row, x);
		else
			log_case(row, x);
	}
	assert_int_equal(settings_table.nrows,
			 sizeof(samples) / sizeof(*samples));
}

/* Several changes that need a restart are named together; the rules that
 * apply to new connections are taken all the same. */
static void several_changes(void **state)
{
	(void)state;
	struct recv_log_settings served, next;
	recv_log_settings_init(&served);
	recv_log_settings_init(&next);
	set(cli_option_find(&settings_table, "create"), "2M", &next);
	set(cli_option_find(&settings_table, "direct-write-to-pmem"), "yes",
	    &next);
	set(cli_option_find(&settings_table, "methods"), "gpspm", &next);
	set(cli_option_find(&settings_table, "allow"), "10.0.0.0/8, 192.0.2.1",
	    &next);
	char changed[128];
	assert_int_equal(
	    settings_reload_log(&served, &next, changed, sizeof(changed)), 2);
	assert_string_equal(changed, "create and direct-write-to-pmem");
	assert_int_equal(served.create_size, 0);
	assert_false(served.direct_write_to_pmem);
	assert_int_equal(served.methods, next.methods);
	assert_int_equal(served.nallow, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_row),
	    cmocka_unit_test(several_changes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
