/* Endpoints and targets as the command line gives them (cli/endpoint.h):
 * HOST[:PORT], targets with log names, their labels and spans, and lists
 * of targets, IPv6 and quoting included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/endpoint.h"
#include "error.h"

#include <string.h>

static void endpoints(void **state)
{
	(void)state;
	struct rs_endpoint ep;
	assert_int_equal(rs_endpoint_parse("pmemhost", &ep, 0), 0);
	assert_string_equal(ep.host, "pmemhost");
	assert_string_equal(ep.port, RS_DEFAULT_PORT);
	assert_int_equal(rs_endpoint_parse("192.0.2.1:9000", &ep, 0), 0);
	assert_string_equal(ep.host, "192.0.2.1");
	assert_string_equal(ep.port, "9000");
	assert_int_equal(rs_endpoint_parse("[fe80::1]:7", &ep, 0), 0);
	assert_string_equal(ep.host, "fe80::1");
	assert_string_equal(ep.port, "7");
	assert_int_equal(rs_endpoint_parse(":7300", &ep, 0), 0);
	assert_string_equal(ep.host, "");
	assert_string_equal(ep.port, "7300");
	assert_int_not_equal(rs_endpoint_parse("host:0", &ep, 0), 0);
	assert_int_not_equal(rs_endpoint_parse("host:65536", &ep, 0), 0);
	assert_int_not_equal(rs_endpoint_parse("host:http", &ep, 0), 0);
	assert_int_not_equal(rs_endpoint_parse("host:+80", &ep, 0), 0);
	assert_int_not_equal(rs_endpoint_parse("host: 80", &ep, 0), 0);
	assert_int_not_equal(rs_endpoint_parse("fe80::1", &ep, 0), 0);
	assert_int_not_equal(rs_endpoint_parse("[fe80::1", &ep, 0), 0);
	assert_int_not_equal(rs_endpoint_parse("", &ep, 0), 0);
	assert_int_not_equal(rs_endpoint_parse("host:123456789", &ep, 0), 0);

	/* An address to listen on takes no log name. */
	struct rs_error err = {0};
	assert_int_equal(rs_endpoint_parse("h:7300/app", &ep, &err),
			 RS_E_INVAL);
	assert_non_null(strstr(err.msg, "'/'"));
	assert_int_equal(rs_endpoint_parse("h/app", &ep, 0), RS_E_INVAL);
	assert_int_equal(rs_endpoint_parse("[fe80::1]/app", &ep, 0),
			 RS_E_INVAL);
}

/* Parses text, which must be accepted, into t. */
static void target_ok(const char *text, struct rs_target *t)
{
	struct rs_error err = {0};
	assert_int_equal(rs_target_parse(text, t, &err), 0);
	assert_int_equal(err.code, 0);
}

static void targets_with_names(void **state)
{
	(void)state;
	struct rs_target t;
	target_ok("h/app", &t);
	assert_string_equal(t.endpoint.host, "h");
	assert_string_equal(t.endpoint.port, RS_DEFAULT_PORT);
	assert_string_equal(t.name, "app");
	target_ok("h:7300/app", &t);
	assert_string_equal(t.endpoint.host, "h");
	assert_string_equal(t.endpoint.port, "7300");
	assert_string_equal(t.name, "app");
	target_ok("[fe80::1]:7300/app", &t);
	assert_string_equal(t.endpoint.host, "fe80::1");
	assert_string_equal(t.endpoint.port, "7300");
	assert_string_equal(t.name, "app");
	target_ok("[fe80::1]/app.2024_x-y", &t);
	assert_string_equal(t.endpoint.host, "fe80::1");
	assert_string_equal(t.endpoint.port, RS_DEFAULT_PORT);
	assert_string_equal(t.name, "app.2024_x-y");
	target_ok("h:7300", &t); /* no name: the receiver's only log */
	assert_string_equal(t.endpoint.port, "7300");
	assert_string_equal(t.name, "");
	target_ok("h/abcdefghijklmnopqrstuvwxyz01234", &t); /* 31: longest */
	assert_int_equal(strlen(t.name), RS_LOG_NAME_MAX);
}

/* text is refused with RS_E_INVAL, a message containing each of what, and
 * t left empty. */
static void target_bad(const char *text, const char *what, const char *what2)
{
	struct rs_target t;
	memset(&t, 0x5a, sizeof(t));
	struct rs_error err = {0};
	assert_int_equal(rs_target_parse(text, &t, &err), RS_E_INVAL);
	assert_int_equal(err.code, RS_E_INVAL);
	assert_null(strchr(err.msg, '\n'));
	assert_non_null(strstr(err.msg, what));
	if (what2)
		assert_non_null(strstr(err.msg, what2));
	assert_string_equal(t.endpoint.host, "");
	assert_string_equal(t.name, "");
}

static void targets_refused(void **state)
{
	(void)state;
	/* Every name error says what a name may contain. */
	const char *rule = "1 to 31 letters, digits, '.', '_' or '-'";
	target_bad("h/", "missing log name", rule);
	target_bad("h/bad name", "contains ' '", rule);
	target_bad("h/abcdefghijklmnopqrstuvwxyz012345", "of 32 characters",
		   rule);
	target_bad("h/.x", "starts with '.'", rule);
	target_bad("h/-x", "starts with '-'", rule);
	target_bad("h/a/b", "contains '/'", rule);
	target_bad("h/a\nb", "byte 0x0a", rule); /* and still one line */
	target_bad("h:7300/caf\xc3\xa9", "byte 0xc3", rule);
	/* The address part keeps its own checks. */
	target_bad("h:0/app", "port must be a number", 0);
	target_bad("h:/app", "port must be a number", 0);
	target_bad("fe80::1/app", "[ADDR]:PORT", 0);
	target_bad("[fe80::1/app]:7300", "missing ']'", 0);
	target_bad("/app", "missing host", 0);
	target_bad(":7300/app", "missing host", 0);
	target_bad("", "missing host", 0);
}

/* A list parser (HOST1,HOST2) hands each target over as a span of a longer
 * string: nothing past the span counts. */
static void target_spans(void **state)
{
	(void)state;
	const char *list = "a:7300/one,b/two";
	struct rs_target t;
	assert_int_equal(rs_target_parse_span(list, 10, &t, 0), 0);
	assert_string_equal(t.endpoint.host, "a");
	assert_string_equal(t.endpoint.port, "7300");
	assert_string_equal(t.name, "one");
	assert_int_equal(rs_target_parse_span(list + 11, 5, &t, 0), 0);
	assert_string_equal(t.endpoint.host, "b");
	assert_string_equal(t.name, "two");
	assert_int_equal(rs_target_parse_span(list, 7, &t, 0), RS_E_INVAL);
	assert_int_equal(rs_target_parse_span(list, 2, &t, 0), RS_E_INVAL);
	assert_int_equal(rs_target_parse_span("h/app", 1, &t, 0), 0);
	assert_string_equal(t.endpoint.host, "h");
	assert_string_equal(t.name, "");
	/* A NUL ends the span early. */
	assert_int_equal(rs_target_parse_span("h/ab\0cd", 7, &t, 0), 0);
	assert_string_equal(t.name, "ab");
}

static void target_labels(void **state)
{
	(void)state;
	struct rs_target t;
	char buf[RS_TARGET_LABEL_SIZE];
	target_ok("pmemhost", &t);
	assert_string_equal(rs_target_label(&t, buf, sizeof(buf)), "pmemhost");
	target_ok("pmemhost:7300", &t); /* replicas told apart by port */
	assert_string_equal(rs_target_label(&t, buf, sizeof(buf)),
			    "pmemhost:7300");
	target_ok("pmemhost/app", &t);
	assert_string_equal(rs_target_label(&t, buf, sizeof(buf)),
			    "pmemhost:" RS_DEFAULT_PORT "/app");
	target_ok("[fe80::1]:7300/app", &t);
	assert_string_equal(rs_target_label(&t, buf, sizeof(buf)),
			    "[fe80::1]:7300/app");
	/* The label parses back to the same target. */
	struct rs_target again;
	target_ok(buf, &again);
	assert_memory_equal(&again, &t, sizeof(t));
	char small[8];
	assert_string_equal(rs_target_label(&t, small, sizeof(small)),
			    "[fe80::");
}

/* text, a list, parses into n targets, returned in out. */
static void list_ok(const char *text, struct rs_target *out, unsigned n)
{
	struct rs_error err = {0};
	unsigned got = 99;
	assert_int_equal(
	    rs_target_list_parse(text, out, RS_TARGETS_MAX, &got, &err), 0);
	assert_int_equal(err.code, 0);
	assert_int_equal(got, n);
}

/* The list text is refused with RS_E_INVAL and exactly message, and
 * nothing is returned. */
static void list_bad(const char *text, unsigned max, const char *message)
{
	struct rs_target out[RS_TARGETS_MAX + 1];
	memset(out, 0x5a, sizeof(out));
	struct rs_error err = {0};
	unsigned n = 99;
	assert_int_equal(rs_target_list_parse(text, out, max, &n, &err),
			 RS_E_INVAL);
	assert_int_equal(err.code, RS_E_INVAL);
	assert_string_equal(err.msg, message);
	assert_int_equal(n, 0);
	static const struct rs_target empty;
	for (unsigned i = 0; i < max; i++)
		assert_memory_equal(&out[i], &empty, sizeof(empty));
	/* Nothing past max is touched. */
	assert_int_equal(((unsigned char *)&out[max])[0], 0x5a);
}

static void target_lists(void **state)
{
	(void)state;
	struct rs_target t[RS_TARGETS_MAX];
	list_ok("a,b:7300,c/app", t, 3);
	assert_string_equal(t[0].endpoint.host, "a");
	assert_string_equal(t[0].endpoint.port, RS_DEFAULT_PORT);
	assert_string_equal(t[0].name, "");
	assert_string_equal(t[1].endpoint.host, "b");
	assert_string_equal(t[1].endpoint.port, "7300");
	assert_string_equal(t[2].endpoint.host, "c");
	assert_string_equal(t[2].name, "app");
	/* One host, several logs or ports: different replicas. */
	list_ok("h/a,h/b,h:7300/a,h,h:7300", t, 5);
	list_ok("h/a,h/A", t, 2); /* log names are case-sensitive */
	/* Exactly the most there may be. */
	list_ok("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p", t, RS_TARGETS_MAX);
	assert_string_equal(t[15].endpoint.host, "p");
}

/* The colons of an IPv6 address in brackets do not cut the list, nor
 * does anything else inside the brackets. */
static void target_lists_ipv6(void **state)
{
	(void)state;
	struct rs_target t[RS_TARGETS_MAX];
	list_ok("[fe80::1]:7204/a,[::1]/b", t, 2);
	assert_string_equal(t[0].endpoint.host, "fe80::1");
	assert_string_equal(t[0].endpoint.port, "7204");
	assert_string_equal(t[0].name, "a");
	assert_string_equal(t[1].endpoint.host, "::1");
	assert_string_equal(t[1].endpoint.port, RS_DEFAULT_PORT);
	assert_string_equal(t[1].name, "b");
	list_ok("[fe80::1],[::1]", t, 2);
	assert_string_equal(t[0].endpoint.host, "fe80::1");
	assert_string_equal(t[0].name, "");
	assert_string_equal(t[1].endpoint.host, "::1");
	list_ok("h1,[2001:db8::1]:7300/x,192.0.2.1:9000,[::1]", t, 4);
	assert_string_equal(t[1].endpoint.host, "2001:db8::1");
	assert_string_equal(t[1].endpoint.port, "7300");
	assert_string_equal(t[1].name, "x");
	assert_string_equal(t[2].endpoint.host, "192.0.2.1");
	assert_string_equal(t[2].endpoint.port, "9000");
	assert_string_equal(t[3].endpoint.host, "::1");
	list_ok("[fe80::1]:9000,[fe80::1]:9001", t, 2);
	/* A comma inside the brackets stays in the address (no address has
	 * one: resolving it fails later, it does not split the list). */
	list_ok("[a,b]:7300,c", t, 2);
	assert_string_equal(t[0].endpoint.host, "a,b");
	/* An unclosed bracket takes the rest: a single, bad, target. */
	list_bad("[fe80::1,h2", RS_TARGETS_MAX,
		 "missing ']' after IPv6 address");
	list_bad("h1,fe80::1,h2", RS_TARGETS_MAX,
		 "replica 2 of 3 ('fe80::1'): write an IPv6 address as "
		 "[ADDR]:PORT");
}

/* Without a comma the list parser is the single one: same target, same
 * message. */
static void target_list_of_one(void **state)
{
	(void)state;
	const char *texts[] = {
	    "h",    "h:7300/app", "[fe80::1]:7/a", "h:0",    "h/", "",
	    "/app", "fe80::1",	  "h/bad name",	   "[::1]x", 0};
	for (unsigned i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
		struct rs_target one, list[RS_TARGETS_MAX];
		struct rs_error e1 = {0}, e2 = {0};
		unsigned n = 99;
		int rc = rs_target_parse(texts[i], &one, &e1);
		assert_int_equal(rs_target_list_parse(texts[i], list,
						      RS_TARGETS_MAX, &n, &e2),
				 rc);
		assert_int_equal(n, rc ? 0 : 1);
		assert_memory_equal(&list[0], &one, sizeof(one));
		assert_int_equal(e1.code, e2.code);
		assert_string_equal(e1.msg, e2.msg);
	}
}

static void target_lists_refused(void **state)
{
	(void)state;
	list_bad(",", RS_TARGETS_MAX,
		 "replica 1 of 2 is empty (a ',' at the start)");
	list_bad(",a", RS_TARGETS_MAX,
		 "replica 1 of 2 is empty (a ',' at the start)");
	list_bad("a,,b", RS_TARGETS_MAX,
		 "replica 2 of 3 is empty (two ',' in a row)");
	list_bad("a,b,", RS_TARGETS_MAX,
		 "replica 3 of 3 is empty (a ',' at the end)");
	/* A bad item: where it is, what it is, and the single parser's
	 * reason. */
	list_bad("a,host:99999,c", RS_TARGETS_MAX,
		 "replica 2 of 3 ('host:99999'): port must be a number from 1 "
		 "to 65535");
	list_bad("[::1]/a,/b", RS_TARGETS_MAX,
		 "replica 2 of 2 ('/b'): missing host");
	list_bad("a,h/-x", RS_TARGETS_MAX,
		 "replica 2 of 2 ('h/-x'): log name starts with '-'; a log "
		 "name is 1 to 31 letters, digits, '.', '_' or '-', not "
		 "starting with '.' or '-'");
	list_bad("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", RS_TARGETS_MAX,
		 "17 replicas listed: at most 16 replicas");
	list_bad("a,b,c", 2, "3 replicas listed: at most 2 replicas");
	/* Too many is said before what is wrong with any item. */
	list_bad(",,", 2, "3 replicas listed: at most 2 replicas");
}

/* The same replica twice, however spelled, is one mistake. */
static void target_lists_duplicates(void **state)
{
	(void)state;
	list_bad("h,x,h:7204", RS_TARGETS_MAX,
		 "replica 3 is the same as replica 1 (h:7204)");
	list_bad("h/a,h:07204/a", RS_TARGETS_MAX,
		 "replica 2 is the same as replica 1 (h:7204/a)");
	list_bad("Pmem.Example/a,pmem.example/a", RS_TARGETS_MAX,
		 "replica 2 is the same as replica 1 (Pmem.Example:7204/a)");
	list_bad("[fe80::1]:7204/a,x,[FE80::1]/a", RS_TARGETS_MAX,
		 "replica 3 is the same as replica 1 ([fe80::1]:7204/a)");
	list_bad("a:7300,b,c,a:7300,a:7300", RS_TARGETS_MAX,
		 "replica 4 is the same as replica 1 (a:7300)");
}

/* A message quotes a bad item on one line, and not at any length. */
static void target_list_quotes(void **state)
{
	(void)state;
	struct rs_target t[2];
	struct rs_error err = {0};
	unsigned n;
	assert_int_equal(rs_target_list_parse("a,h/a\nb", t, 2, &n, &err),
			 RS_E_INVAL);
	assert_null(strchr(err.msg, '\n'));
	assert_non_null(strstr(err.msg, "replica 2 of 2 ('h/a\\x0ab'): "));
	assert_non_null(strstr(err.msg, "byte 0x0a"));
	char text[300] = "a,";
	memset(text + 2, 'x', 200);
	strcat(text, ":0");
	assert_int_equal(rs_target_list_parse(text, t, 2, &n, &err),
			 RS_E_INVAL);
	assert_non_null(strstr(err.msg, "replica 2 of 2 ('xxxxxxxx"));
	assert_non_null(strstr(err.msg, "xxx...'): port must be"));
	assert_true(strlen(err.msg) < 160);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(endpoints),
	    cmocka_unit_test(targets_with_names),
	    cmocka_unit_test(targets_refused),
	    cmocka_unit_test(target_spans),
	    cmocka_unit_test(target_labels),
	    cmocka_unit_test(target_lists),
	    cmocka_unit_test(target_lists_ipv6),
	    cmocka_unit_test(target_list_of_one),
	    cmocka_unit_test(target_lists_refused),
	    cmocka_unit_test(target_lists_duplicates),
	    cmocka_unit_test(target_list_quotes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
