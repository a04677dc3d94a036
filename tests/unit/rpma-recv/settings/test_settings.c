/* rpma-recv's settings: the configuration file (every error with its line
 * and wording, the shipped example, globals, several logs) and logs given
 * on the command line. Files live in a temporary directory; in the texts
 * below '@' stands for its path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "proto/method.h"
#include "settings/settings.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALL_METHODS                                                            \
	(RS_METHOD_BIT(RS_METHOD_APM) | RS_METHOD_BIT(RS_METHOD_GPSPM) |       \
	 RS_METHOD_BIT(RS_METHOD_STAGED) | RS_METHOD_BIT(RS_METHOD_FLUSH))

static char dir[] = "/tmp/rs-test-settings-XXXXXX";
static const char key_bytes[] = "0123456789abcdef0123456789abcdef";

/* text with every '@' replaced by the directory (malloc'd). */
static char *expand(const char *text)
{
	size_t n = 1;
	for (const char *c = text; *c; c++)
		n += *c == '@' ? strlen(dir) : 1;
	char *out = malloc(n), *o = out;
	assert_non_null(out);
	for (const char *c = text; *c; c++) {
		if (*c == '@')
			o = stpcpy(o, dir);
		else
			*o++ = *c;
	}
	*o = '\0';
	return out;
}

static void file_write(const char *path, const void *bytes, size_t len,
		       mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_true(write(fd, bytes, len) == (ssize_t)len);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

/* A new configuration file holding len bytes; its path into path. */
static void conf_write_bytes(const void *bytes, size_t len, char *path)
{
	snprintf(path, PATH_MAX, "%s/conf-XXXXXX", dir);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_true(write(fd, bytes, len) == (ssize_t)len);
	close(fd);
}

static void conf_write(const char *text, char *path)
{
	char *full = expand(text);
	conf_write_bytes(full, strlen(full), path);
	free(full);
}

/* Loads text into s (initialised by the caller). */
static int conf_load(const char *text, struct recv_settings *s,
		     struct rs_error *err, char *path)
{
	conf_write(text, path);
	memset(err, 0, sizeof(*err));
	return recv_settings_load(path, s, err);
}

static void in_dir(const char *name, char *path)
{
	snprintf(path, PATH_MAX, "%s/%s", dir, name);
}

/* err says "PATH:LINE: " (or "PATH: " for line 0) and then fragment. */
static void expect_message(const struct rs_error *err, const char *path,
			   unsigned line, const char *fragment)
{
	char prefix[PATH_MAX + 32];
	if (line)
		snprintf(prefix, sizeof(prefix), "%s:%u: ", path, line);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", path);
	char *want = expand(fragment);
	bool ok = !strncmp(err->msg, prefix, strlen(prefix)) &&
		  strstr(err->msg + strlen(prefix), want) &&
		  !strchr(err->msg, '\n');
	if (!ok)
		print_error("want: %s...%s\n got: %s\n", prefix, want,
			    err->msg);
	free(want);
	assert_true(ok);
}

/* Loading text fails at line with fragment in the message, and leaves
 * the settings as they were. */
static void expect_error(const char *text, unsigned line, const char *fragment)
{
	struct recv_settings s, before;
	recv_settings_init(&s);
	before = s;
	struct rs_error err;
	char path[PATH_MAX];
	assert_int_equal(conf_load(text, &s, &err, path), RS_E_INVAL);
	assert_int_equal(err.code, RS_E_INVAL);
	expect_message(&err, path, line, fragment);
	assert_memory_equal(&s, &before, sizeof(s));
	recv_settings_free(&s);
}

/* A log as --log NAME=POOL gives it. */
static struct recv_log_settings cli_log(const char *name, const char *pool)
{
	struct recv_log_settings log;
	memset(&log, 0, sizeof(log));
	snprintf(log.name, sizeof(log.name), "%s", name);
	char *path = expand(pool);
	snprintf(log.pool_path, sizeof(log.pool_path), "%s", path);
	free(path);
	log.methods = ALL_METHODS;
	return log;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	char path[PATH_MAX], link_path[PATH_MAX];
	static const char *const pools[] = {"a.pool", "b.pool", "c.pool",
					    "audit.pool"};
	for (size_t i = 0; i < sizeof(pools) / sizeof(*pools); i++) {
		in_dir(pools[i], path);
		file_write(path, "pool", 4, 0600);
	}
	in_dir("a.pool", path);
	in_dir("a.link", link_path);
	if (link(path, link_path))
		return -1;
	in_dir("key600", path);
	file_write(path, key_bytes, 32, 0600);
	in_dir("key644", path);
	file_write(path, key_bytes, 32, 0644);
	in_dir("short.key", path);
	file_write(path, "short", 5, 0600);
	in_dir("keydir", path);
	return mkdir(path, 0700);
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void defaults(void **state)
{
	(void)state;
	struct recv_settings s;
	memset(&s, 0xa5, sizeof(s));
	recv_settings_init(&s);
	assert_string_equal(s.path, "");
	assert_string_equal(s.listen.host, "");
	assert_string_equal(s.listen.port, "7204");
	assert_int_equal(s.credits, 8);
	assert_int_equal(s.staging_slot, 1u << 20);
	assert_int_equal(s.peer_timeout_ms, 10000);
	assert_int_equal(s.max_senders, 1024);
	assert_false(s.busy_poll);
	assert_null(s.logs);
	assert_int_equal(s.nlogs, 0);
	assert_null(recv_settings_find_log(&s, "app"));
	recv_settings_free(&s);
}

/* Replaces the one occurrence of from in *text by to. */
static void replace(char **text, const char *from, const char *to)
{
	char *at = strstr(*text, from);
	assert_non_null(at);
	assert_null(strstr(at + 1, from));
	char *out = malloc(strlen(*text) + strlen(to) + 1);
	assert_non_null(out);
	sprintf(out, "%.*s%s%s", (int)(at - *text), *text, to,
		at + strlen(from));
	free(*text);
	*text = out;
}

/* The line of text on which needle starts. */
static unsigned line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);
	assert_non_null(at);
	unsigned line = 1;
	for (const char *c = text; c < at; c++)
		line += *c == '\n';
	return line;
}

static char *file_read(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *text = calloc(1, 1 << 16);
	assert_non_null(text);
	assert_true(fread(text, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	return text;
}

/* The [app] section of dist/rpma-recv.conf. */
static void expect_shipped_app(const struct recv_settings *s, const char *text)
{
	const struct recv_log_settings *app = recv_settings_find_log(s, "app");
	assert_ptr_equal(app, &s->logs[0]);
	assert_int_equal(app->line, line_of(text, "[app]"));
	char *want = expand("@/app.pool");
	assert_string_equal(app->pool_path, want);
	free(want);
	assert_int_equal(app->create_size, 1ull << 30);
	assert_int_equal(app->nallow, 2);
	assert_int_equal(app->allow[0].family, AF_INET);
	assert_int_equal(app->allow[0].prefix, 24);
	assert_int_equal(app->allow[1].family, AF_INET6);
	assert_int_equal(app->allow[1].prefix, 32);
	assert_int_equal(app->methods, ALL_METHODS);
	assert_false(app->direct_write_to_pmem);
	assert_string_equal(app->auth_key_path, "");
}

/* The [audit] section of dist/rpma-recv.conf. */
static void expect_shipped_audit(const struct recv_settings *s,
				 const char *text)
{
	const struct recv_log_settings *audit =
	    recv_settings_find_log(s, "audit");
	assert_ptr_equal(audit, &s->logs[1]);
	assert_int_equal(audit->line, line_of(text, "[audit]"));
	assert_int_equal(audit->create_size, 0);
	assert_int_equal(audit->nallow, 1);
	assert_int_equal(audit->allow[0].prefix, 32);
	assert_int_equal(audit->auth_key.len, 32);
	assert_memory_equal(audit->auth_key.bytes, key_bytes, 32);
	assert_int_equal(audit->methods, RS_METHOD_BIT(RS_METHOD_GPSPM) |
					     RS_METHOD_BIT(RS_METHOD_STAGED));
	assert_false(audit->direct_write_to_pmem);
}

/* dist/rpma-recv.conf as shipped, its paths moved into the directory:
 * app's pool does not exist (it has `create`), audit's does. */
static void shipped_example(void **state)
{
	(void)state;
	char *text = file_read(RS_DIST_CONF);
	replace(&text, "/mnt/pmem/app.pool", "@/app.pool");
	replace(&text, "pool = /dev/dax0.0", "pool = @/audit.pool");
	replace(&text, "auth-key = /etc/rpma-ship/audit.key",
		"auth-key = @/key600");
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char path[PATH_MAX];
	int rc = conf_load(text, &s, &err, path);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_string_equal(s.path, path);
	assert_string_equal(s.listen.host, "");
	assert_string_equal(s.listen.port, "7204");
	assert_int_equal(s.credits, 8);
	assert_int_equal(s.staging_slot, 1u << 20);
	assert_int_equal(s.peer_timeout_ms, 10000);
	assert_int_equal(s.max_senders, 1024);
	assert_int_equal(s.nlogs, 2);
	expect_shipped_app(&s, text);
	expect_shipped_audit(&s, text);
	assert_null(recv_settings_find_log(&s, "ap"));
	recv_settings_free(&s);
	assert_null(s.logs);
	free(text);
}

static void every_global(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char path[PATH_MAX];
	assert_int_equal(conf_load("  listen=[2001:db8::1]  \n"
				   "\tport\t=\t7300\n"
				   "credits = 64\n"
				   "staging-slot = 64KiB\n"
				   "peer-timeout = 2m\n"
				   "max-senders = 1024\n"
				   "busy-poll = Yes\n"
				   "[a]\n"
				   "pool = @/a.pool\n",
				   &s, &err, path),
			 0);
	assert_string_equal(s.listen.host, "2001:db8::1");
	assert_string_equal(s.listen.port, "7300");
	assert_int_equal(s.credits, 64);
	assert_int_equal(s.staging_slot, 64 << 10);
	assert_int_equal(s.peer_timeout_ms, 120000);
	assert_int_equal(s.max_senders, 1024);
	assert_true(s.busy_poll);
	recv_settings_free(&s);

	/* Bare IPv6 and IPv4 listen addresses; the port stays its own. */
	recv_settings_init(&s);
	assert_int_equal(conf_load("port = 9\nlisten = fe80::1\nbusy-poll = 0\n"
				   "[a]\npool = @/a.pool\n",
				   &s, &err, path),
			 0);
	assert_string_equal(s.listen.host, "fe80::1");
	assert_string_equal(s.listen.port, "9");
	assert_false(s.busy_poll);
	recv_settings_free(&s);
	recv_settings_init(&s);
	assert_int_equal(conf_load("listen = 192.0.2.1\n[a]\npool = @/a.pool\n",
				   &s, &err, path),
			 0);
	assert_string_equal(s.listen.host, "192.0.2.1");
	assert_string_equal(s.listen.port, "7204");
	recv_settings_free(&s);
}

/* Globals only: fine when the logs are there already (--log), an error
 * when the file is all there is. */
static void globals_only(void **state)
{
	(void)state;
	static const char text[] = "# globals only\nport = 7400\ncredits = 2\n";
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	struct recv_log_settings log = cli_log("app", "@/a.pool");
	assert_int_equal(recv_settings_add_log(&s, &log, &err), 0);
	char path[PATH_MAX];
	assert_int_equal(conf_load(text, &s, &err, path), 0);
	assert_string_equal(s.listen.port, "7400");
	assert_int_equal(s.credits, 2);
	assert_int_equal(s.nlogs, 1);
	assert_string_equal(s.logs[0].pool_path, log.pool_path);
	recv_settings_free(&s);

	expect_error(text, 0, "no log defined: add a section per log");
}

static void three_logs(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char path[PATH_MAX];
	int rc = conf_load("; rsyncd-style comment\n"
			   "[a]\n"
			   "pool = @/a.pool\n"
			   "allow = 192.0.2.0/24,198.51.100.7 2001:db8::/32\n"
			   "allow=10.0.0.0/8\n"
			   "methods = staged\n"
			   "\n"
			   "[b.2_x-y]\n"
			   "pool = @/new#1.pool\n"
			   "create = 2M\n"
			   "methods = apm,gpspm\n"
			   "direct-write-to-pmem = yes\n"
			   "[c]\n"
			   "  pool = @/c.pool  \n",
			   &s, &err, path);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(s.nlogs, 3);
	const struct recv_log_settings *a = recv_settings_find_log(&s, "a");
	assert_non_null(a);
	assert_int_equal(a->line, 2);
	assert_int_equal(a->nallow, 4);
	assert_int_equal(a->allow[1].prefix, 32);
	assert_int_equal(a->allow[2].family, AF_INET6);
	assert_int_equal(a->allow[3].prefix, 8);
	assert_int_equal(a->methods, RS_METHOD_BIT(RS_METHOD_STAGED));
	const struct recv_log_settings *b =
	    recv_settings_find_log(&s, "b.2_x-y");
	assert_non_null(b);
	assert_int_equal(b->line, 8);
	char *want = expand("@/new#1.pool"); /* '#' after text is no comment */
	assert_string_equal(b->pool_path, want);
	free(want);
	assert_int_equal(b->create_size, 2u << 20);
	assert_true(b->direct_write_to_pmem);
	assert_int_equal(b->methods, RS_METHOD_BIT(RS_METHOD_APM) |
					 RS_METHOD_BIT(RS_METHOD_GPSPM));
	const struct recv_log_settings *c = recv_settings_find_log(&s, "c");
	assert_non_null(c);
	assert_int_equal(c->nallow, 0);
	assert_int_equal(c->methods, ALL_METHODS);
	assert_null(recv_settings_find_log(&s, "d"));
	recv_settings_free(&s);
}

static void crlf_lines(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char path[PATH_MAX];
	assert_int_equal(
	    conf_load("port = 7300\r\n\r\n[a]\r\npool = @/a.pool\r\n", &s, &err,
		      path),
	    0);
	assert_string_equal(s.listen.port, "7300");
	assert_int_equal(s.logs[0].line, 3);
	recv_settings_free(&s);
	expect_error("\r\n\r\nport 7300\r\n", 3, "missing '='");
}

struct bad {
	const char *text;
	unsigned line;
	const char *fragment;
};

static void expect_errors(const struct bad *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		expect_error(cases[i].text, cases[i].line, cases[i].fragment);
}

#define LOG_A "[a]\npool = @/a.pool\n"

static void syntax_errors(void **state)
{
	(void)state;
	static const struct bad cases[] = {
	    {"port = 7204\nfoo = 1\n" LOG_A, 2,
	     "unknown key 'foo' (global keys: listen, port, credits, "
	     "staging-slot, peer-timeout, max-senders, workers, busy-poll, "
	     "metrics-file, metrics-interval)"},
	    {"# comment\n\n" LOG_A "pol = x\n", 5,
	     "unknown key 'pol' (keys of a log: pool, create, allow, auth-key, "
	     "methods, direct-write-to-pmem, append-only, archive, rotate-at, "
	     "archive-keep, archive-max)"},
	    {"# comment\n\nport 7204\n" LOG_A, 3,
	     "missing '=': write `key = value`"},
	    {LOG_A "create\n", 3, "missing '='"},
	    {"port =\n" LOG_A, 1, "empty value: give one after '='"},
	    {LOG_A "allow =   \n", 3, "empty value"},
	    {"= 7204\n" LOG_A, 1, "missing key before '='"},
	    {"[a\npool = @/a.pool\n", 1, "a section line must end with ']'"},
	    {"[ ]\npool = @/a.pool\n", 1, "empty section name"},
	    {"port = 1\n[bad name]\npool = @/a.pool\n", 2,
	     "'bad name' is not a log name: use 1 to 31 letters"},
	    {"[-a]\npool = @/a.pool\n", 1, "'-a' is not a log name"},
	    {"[abcdefghijabcdefghijabcdefghijab]\n", 1,
	     "log name 'abcdefghijabcdefghijabcdefghijab' is longer than 31"},
	    {"port = 1\nport = 2\n" LOG_A, 2,
	     "'port' is given twice (also on line 1): keep one"},
	    {LOG_A "\npool = @/b.pool\n", 4,
	     "'pool' is given twice (also on line 2)"},
	    {LOG_A "port = 7300\n", 3,
	     "'port' is a global setting: move it above the first section "
	     "(line 1)"},
	    {"port = 7300\npool = @/a.pool\n[a]\n", 2,
	     "'pool' is a setting of a log: put it in the log's section"},
	    {"", 0, "no log defined"},
	    {"# nothing but comments\n\n", 0, "no log defined"},
	};
	expect_errors(cases, sizeof(cases) / sizeof(*cases));
}

static void global_value_errors(void **state)
{
	(void)state;
	static const struct bad cases[] = {
	    {"listen = 192.0.2.1:7300\n" LOG_A, 1,
	     "listen '192.0.2.1:7300' holds a port: give the address alone "
	     "and the port as `port = 7300`"},
	    {"listen = [fe80::1]:7300\n" LOG_A, 1, "holds a port"},
	    {"listen = [fe80::1\n" LOG_A, 1,
	     "listen '[fe80::1': missing ']' after IPv6 address"},
	    {"listen = []\n" LOG_A, 1, "listen '[]': no address"},
	    {"port = 0\n" LOG_A, 1,
	     "port '0' must be a number from 1 to 65535"},
	    {"port = 65536\n" LOG_A, 1, "port '65536' must be"},
	    {"port = http\n" LOG_A, 1, "port 'http' must be"},
	    {"port = +80\n" LOG_A, 1, "port '+80' must be"},
	    {"credits = 0\n" LOG_A, 1,
	     "credits '0' must be a number from 1 to 64"},
	    {"credits = 65\n" LOG_A, 1, "credits '65' must be"},
	    {"credits = 4x\n" LOG_A, 1, "credits '4x' must be"},
	    {"staging-slot = 2K\n" LOG_A, 1,
	     "staging-slot '2K' must be a size from 4K to 1G, like 1M"},
	    {"staging-slot = 2G\n" LOG_A, 1, "staging-slot '2G' must be"},
	    {"staging-slot = 1Q\n" LOG_A, 1, "staging-slot '1Q' must be"},
	    {"peer-timeout = 500ms\n" LOG_A, 1,
	     "peer-timeout '500ms' must be 1 s to 1 hour, like 10s or 2m"},
	    {"peer-timeout = 61m\n" LOG_A, 1, "peer-timeout '61m' must be"},
	    {"peer-timeout = soon\n" LOG_A, 1, "peer-timeout 'soon' must be"},
	    {"max-senders = 0\n" LOG_A, 1,
	     "max-senders '0' must be a number from 1 to 1024"},
	    {"max-senders = 1025\n" LOG_A, 1, "max-senders '1025' must be"},
	    {"busy-poll = maybe\n" LOG_A, 1,
	     "busy-poll 'maybe' must be yes or no (or true, false, 1, 0)"},
	};
	expect_errors(cases, sizeof(cases) / sizeof(*cases));
}

static void log_value_errors(void **state)
{
	(void)state;
	static const struct bad cases[] = {
	    {"[a]\npool = a.pool\n", 2,
	     "pool 'a.pool' must be an absolute path"},
	    {LOG_A "create = 1M\n", 3,
	     "create '1M' must be a size of at least 2M"},
	    {LOG_A "create = big\n", 3, "create 'big' must be"},
	    {LOG_A "allow = 192.0.2.0/24, 192.0.2.0/33\n", 3,
	     "allow '192.0.2.0/33': prefix length out of range; write a range "
	     "like 192.0.2.0/24"},
	    {LOG_A "allow = example.com\n", 3,
	     "allow 'example.com': not an IPv4 or IPv6 address"},
	    {LOG_A "methods = apm fast\n", 3,
	     "methods: 'fast' is not a method; list some of apm, gpspm, "
	     "staged and flush"},
	    {LOG_A "methods = auto\n", 3, "methods: 'auto' is not a method"},
	    {LOG_A "methods = ,\n", 3, "methods: list some of apm"},
	    {LOG_A "direct-write-to-pmem = maybe\n", 3,
	     "direct-write-to-pmem 'maybe' must be yes or no (or true, false, "
	     "1, 0)"},
	    {"[a]\nauth-key = @/key644\npool = @/a.pool\n", 2,
	     "auth key @/key644 is open to its group or others; restrict it "
	     "with chmod "
	     "600"},
	    {LOG_A "auth-key = @/missing.key\n", 3,
	     "cannot open auth key @/missing.key: No such file or directory"},
	    {LOG_A "auth-key = @/keydir\n", 3,
	     "auth key @/keydir is a directory: give the regular file that "
	     "holds the key"},
	    {LOG_A "auth-key = @/short.key\n", 3,
	     "auth key @/short.key must hold 16 to 4096 bytes"},
	    {LOG_A "auth-key = key600\n", 3,
	     "auth-key 'key600' must be an absolute path"},
	};
	expect_errors(cases, sizeof(cases) / sizeof(*cases));
}

/* 33 ranges over two lines: the line that brings the 33rd is wrong. */
static void too_many_ranges(void **state)
{
	(void)state;
	char text[2048] = LOG_A "allow =";
	for (int i = 0; i < 20; i++)
		sprintf(text + strlen(text), " 10.0.%d.0/24", i);
	strcat(text, "\nallow =");
	for (int i = 20; i < RECV_ALLOW_MAX; i++)
		sprintf(text + strlen(text), " 10.0.%d.0/24", i);
	strcat(text, "\n");
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char path[PATH_MAX];
	assert_int_equal(conf_load(text, &s, &err, path), 0);
	assert_int_equal(s.logs[0].nallow, RECV_ALLOW_MAX);
	recv_settings_free(&s);
	strcat(text, "allow = 10.1.0.0/16\n");
	expect_error(text, 5,
		     "log 'a' has more than 32 allow ranges: merge some");
}

static void log_errors(void **state)
{
	(void)state;
	static const struct bad cases[] = {
	    {LOG_A "\n[a]\npool = @/b.pool\n", 4,
	     "log 'a' is already defined (line 1): rename one of them"},
	    {LOG_A "[b]\npool = @/a.pool\n", 4,
	     "log 'b' uses the pool of log 'a' (line 1), @/a.pool: give each "
	     "log its own pool"},
	    {LOG_A "[b]\n# a hard link\npool = @/a.link\n", 5,
	     "log 'b' uses the pool of log 'a' (line 1): @/a.link is the same "
	     "file as @/a.pool; give each log its own pool"},
	    {"[a]\ncreate = 1G\n[b]\npool = @/b.pool\n", 1,
	     "log 'a' has no pool: add `pool = PATH` to its section"},
	    {LOG_A "[b]\nmethods = staged\n", 3, "log 'b' has no pool"},
	    {"[a]\n# missing\npool = @/missing.pool\n", 3,
	     "pool @/missing.pool does not exist: create it with `pmempool "
	     "create log @/missing.pool` or add `create = SIZE`"},
	    {"[a]\npool = @/a.pool/x\n", 2,
	     "cannot reach pool @/a.pool/x: Not a directory"},
	    {"[a]\nappend-only = yes\nmethods = gpspm apm\npool = @/a.pool\n",
	     1,
	     "an append-only log needs the staged method (all it has where the "
	     "device binds no memory windows): add staged to its methods or "
	     "remove append-only"},
	};
	expect_errors(cases, sizeof(cases) / sizeof(*cases));
}

/* A pool that does not exist is fine with `create`, and two logs may not
 * both create the same one. */
static void missing_pool_with_create(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char path[PATH_MAX];
	assert_int_equal(
	    conf_load("[a]\npool = @/new.pool\ncreate = 64M\n", &s, &err, path),
	    0);
	assert_int_equal(s.logs[0].create_size, 64u << 20);
	recv_settings_free(&s);
	expect_error("[a]\npool = @/new.pool\ncreate = 64M\n"
		     "[b]\ncreate = 64M\npool = @/new.pool\n",
		     6, "log 'b' uses the pool of log 'a' (line 1)");
}

static void long_and_binary_lines(void **state)
{
	(void)state;
	char *text = malloc(8192);
	assert_non_null(text);
	strcpy(text, LOG_A "#");
	memset(text + strlen(text), 'x', 4095); /* 4096 with the '#' */
	strcpy(text + strlen(LOG_A) + 4096, "\n");
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char path[PATH_MAX];
	assert_int_equal(conf_load(text, &s, &err, path), 0);
	recv_settings_free(&s);
	strcpy(text + strlen(LOG_A) + 4096, "x\n");
	expect_error(text, 3, "line longer than 4096 bytes");
	free(text);

	static const char nul[] = "port = 7204\n[a]\0\npool = /x\n";
	recv_settings_init(&s);
	conf_write_bytes(nul, sizeof(nul) - 1, path);
	assert_int_equal(recv_settings_load(path, &s, &err), RS_E_INVAL);
	expect_message(&err, path, 2, "a NUL byte");
	assert_int_equal(s.nlogs, 0);
}

static void unreadable_file(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char path[PATH_MAX];
	in_dir("no-such.conf", path);
	assert_int_equal(recv_settings_load(path, &s, &err), RS_E_INVAL);
	expect_message(&err, path, 0,
		       "cannot read it: No such file or directory");
	in_dir("keydir", path);
	assert_int_equal(recv_settings_load(path, &s, &err), RS_E_INVAL);
	expect_message(&err, path, 0,
		       "it is a directory, not a configuration file: give "
		       "the file itself");
	assert_string_equal(s.path, "");
	assert_int_equal(s.nlogs, 0);
}

/* A failed load leaves settings that hold logs and changed values alone. */
static void failure_changes_nothing(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char path[PATH_MAX];
	assert_int_equal(conf_load("port = 7300\n" LOG_A
				   "auth-key = @/key600\n",
				   &s, &err, path),
			 0);
	struct recv_settings before = s;
	struct recv_log_settings log_before = s.logs[0];
	assert_int_equal(
	    conf_load("port = 7400\n[b]\npool = @/b.pool\n[c]\nport = 1\n", &s,
		      &err, path),
	    RS_E_INVAL);
	expect_message(&err, path, 5, "'port' is a global setting");
	assert_memory_equal(&s, &before, sizeof(s));
	assert_memory_equal(&s.logs[0], &log_before, sizeof(log_before));

	/* A good second file adds its logs to those already there. */
	assert_int_equal(
	    conf_load("credits = 8\n[b]\npool = @/b.pool\n", &s, &err, path),
	    0);
	assert_int_equal(s.nlogs, 2);
	assert_string_equal(s.listen.port, "7300");
	assert_int_equal(s.credits, 8);
	assert_string_equal(s.path, path);
	assert_int_equal(s.logs[0].auth_key.len, 32);
	recv_settings_free(&s);
}

/* A file's log against one given with --log before it. */
static void file_after_command_line(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	struct recv_log_settings log = cli_log("a", "@/c.pool");
	assert_int_equal(recv_settings_add_log(&s, &log, &err), 0);
	char path[PATH_MAX];
	assert_int_equal(conf_load(LOG_A, &s, &err, path), RS_E_INVAL);
	expect_message(&err, path, 1,
		       "log 'a' is already defined (--log a=@/c.pool)");
	assert_int_equal(conf_load("[b]\npool = @/c.pool\n", &s, &err, path),
			 RS_E_INVAL);
	expect_message(&err, path, 2,
		       "log 'b' uses the pool of log 'a' (--log a=@/c.pool)");
	assert_int_equal(s.nlogs, 1);
	recv_settings_free(&s);
}

static void expect_add_error(struct recv_settings *s, const char *name,
			     const char *pool, const char *message)
{
	struct recv_log_settings log = cli_log(name, pool);
	unsigned nlogs = s->nlogs;
	struct rs_error err = {0};
	assert_int_equal(recv_settings_add_log(s, &log, &err), RS_E_INVAL);
	char *want = expand(message);
	if (strcmp(err.msg, want))
		print_error("want: %s\n got: %s\n", want, err.msg);
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(s->nlogs, nlogs);
}

static void command_line_logs(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	struct recv_log_settings log = cli_log("app", "@/a.pool");
	assert_int_equal(recv_settings_add_log(&s, &log, &err), 0);
	log = cli_log("audit", "@/missing.pool"); /* created when opened */
	assert_int_equal(recv_settings_add_log(&s, &log, &err), 0);
	assert_int_equal(s.nlogs, 2);
	assert_ptr_equal(recv_settings_find_log(&s, "audit"), &s.logs[1]);
	assert_string_equal(s.logs[1].pool_path, log.pool_path);
	assert_false(s.logs[1].append_only);

	log = cli_log("evidence", "@/e.pool");
	log.append_only = true;
	assert_int_equal(recv_settings_add_log(&s, &log, &err), 0);
	log = cli_log("rewritable", "@/r.pool");
	log.append_only = true;
	log.methods = RS_METHOD_BIT(RS_METHOD_GPSPM);
	assert_int_equal(recv_settings_add_log(&s, &log, &err), RS_E_INVAL);
	char *want = expand("--log rewritable=@/r.pool: an append-only log "
			    "needs the staged method (all it has where the "
			    "device binds no memory windows): add staged to "
			    "its methods or remove append-only");
	assert_string_equal(err.msg, want);
	free(want);
	assert_int_equal(s.nlogs, 3);

	expect_add_error(&s, "bad/name", "@/b.pool",
			 "--log bad/name=@/b.pool: 'bad/name' is not a log "
			 "name: use 1 to 31 letters, digits, '.', '_' or '-', "
			 "not starting with '.' or '-'");
	expect_add_error(&s, "app", "@/b.pool",
			 "--log app=@/b.pool: log 'app' is already defined "
			 "(--log app=@/a.pool): rename one of them");
	expect_add_error(&s, "b", "@/a.pool",
			 "--log b=@/a.pool: log 'b' uses the pool of log "
			 "'app' (--log app=@/a.pool), @/a.pool: give each log "
			 "its own pool");
	expect_add_error(&s, "b", "@/a.link",
			 "--log b=@/a.link: log 'b' uses the pool of log "
			 "'app' (--log app=@/a.pool): @/a.link is the same "
			 "file as @/a.pool; give each log its own pool");
	expect_add_error(&s, "b", "",
			 "--log b=: the pool path is empty: write --log "
			 "NAME=POOL");
	expect_add_error(&s, "", "@/b.pool",
			 "@/b.pool: a log without a name serves alone; name "
			 "it with --log NAME=POOL");
	recv_settings_free(&s);
}

/* `rpma-recv POOL`: the unnamed log serves alone. */
static void unnamed_log(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	struct recv_log_settings log = cli_log("", "@/a.pool");
	assert_int_equal(recv_settings_add_log(&s, &log, &err), 0);
	assert_ptr_equal(recv_settings_find_log(&s, ""), &s.logs[0]);
	expect_add_error(&s, "b", "@/b.pool",
			 "--log b=@/b.pool: the unnamed log @/a.pool serves "
			 "alone; name it with --log NAME=POOL");
	char path[PATH_MAX];
	assert_int_equal(conf_load("[b]\npool = @/b.pool\n", &s, &err, path),
			 RS_E_INVAL);
	expect_message(&err, path, 1, "the unnamed log @/a.pool serves alone");
	recv_settings_free(&s);
}

static void at_most_4096_logs(void **state)
{
	(void)state;
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err;
	char name[16], pool[32];
	for (int i = 0; i < RECV_LOGS_MAX; i++) {
		snprintf(name, sizeof(name), "log%d", i);
		snprintf(pool, sizeof(pool), "@/pool%d", i);
		struct recv_log_settings log = cli_log(name, pool);
		assert_int_equal(recv_settings_add_log(&s, &log, &err), 0);
	}
	expect_add_error(
	    &s, "one-more", "@/more.pool",
	    "--log one-more=@/more.pool: more than 4096 logs: serve "
	    "the others with a second rpma-recv on another port");
	char path[PATH_MAX];
	assert_int_equal(conf_load("[one-more]\npool = @/more.pool\ncreate = "
				   "1G\n",
				   &s, &err, path),
			 RS_E_INVAL);
	expect_message(&err, path, 1, "more than 4096 logs");
	recv_settings_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults),
	    cmocka_unit_test(shipped_example),
	    cmocka_unit_test(every_global),
	    cmocka_unit_test(globals_only),
	    cmocka_unit_test(three_logs),
	    cmocka_unit_test(crlf_lines),
	    cmocka_unit_test(syntax_errors),
	    cmocka_unit_test(global_value_errors),
	    cmocka_unit_test(log_value_errors),
	    cmocka_unit_test(too_many_ranges),
	    cmocka_unit_test(log_errors),
	    cmocka_unit_test(missing_pool_with_create),
	    cmocka_unit_test(long_and_binary_lines),
	    cmocka_unit_test(unreadable_file),
	    cmocka_unit_test(failure_changes_nothing),
	    cmocka_unit_test(file_after_command_line),
	    cmocka_unit_test(command_line_logs),
	    cmocka_unit_test(unnamed_log),
	    cmocka_unit_test(at_most_4096_logs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
