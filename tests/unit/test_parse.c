/* Command-line values: sizes, endpoints, targets with log names and method
 * names, and the rule that picks a persistence method. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cidr.h"
#include "cli/endpoint.h"
#include "cli/size.h"
#include "error.h"
#include "proto/method.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

static void sizes(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(rs_size_parse("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(rs_size_parse("64M", &v), 0);
	assert_int_equal(v, 64u << 20);
	assert_int_equal(rs_size_parse("1GiB", &v), 0);
	assert_int_equal(v, 1u << 30);
	assert_int_equal(rs_size_parse("2k", &v), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(rs_size_parse("3TB", &v), 0);
	assert_int_equal(v, 3ull << 40);
	assert_int_equal(rs_size_parse("", &v), RS_E_INVAL);
	assert_int_equal(rs_size_parse("M", &v), RS_E_INVAL);
	assert_int_equal(rs_size_parse("-1", &v), RS_E_INVAL);
	assert_int_equal(rs_size_parse("12X", &v), RS_E_INVAL);
	assert_int_equal(rs_size_parse("12Mx", &v), RS_E_INVAL);
	assert_int_equal(rs_size_parse("99999999999T", &v), RS_E_INVAL);
	assert_int_equal(rs_size_parse("99999999999999999999", &v), RS_E_INVAL);
}

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

static void method_names(void **state)
{
	(void)state;
	enum rs_method m;
	assert_int_equal(rs_method_parse("staged", &m, 0), 0);
	assert_int_equal(m, RS_METHOD_STAGED);
	assert_int_equal(rs_method_parse("GPSPM", &m, 0), RS_E_INVAL);
	assert_string_equal(rs_method_name(RS_METHOD_APM), "apm");
}

static void method_choice(void **state)
{
	(void)state;
	enum rs_method m;
	struct rs_error why = {0};
	uint8_t all = RS_METHOD_BIT(RS_METHOD_APM) |
		      RS_METHOD_BIT(RS_METHOD_GPSPM) |
		      RS_METHOD_BIT(RS_METHOD_STAGED);
	assert_int_equal(rs_method_choose(all, RS_METHOD_AUTO, &m, &why), 0);
	assert_int_equal(m, RS_METHOD_APM);
	uint8_t no_apm = all & ~RS_METHOD_BIT(RS_METHOD_APM);
	assert_int_equal(rs_method_choose(no_apm, RS_METHOD_AUTO, &m, &why), 0);
	assert_int_equal(m, RS_METHOD_GPSPM);
	assert_int_equal(rs_method_choose(no_apm, RS_METHOD_STAGED, &m, &why),
			 0);
	assert_int_equal(m, RS_METHOD_STAGED);

	/* fsdax on rxe: staged only; asking for gpspm names what works. */
	uint8_t staged = RS_METHOD_BIT(RS_METHOD_STAGED);
	assert_int_equal(rs_method_choose(staged, RS_METHOD_GPSPM, &m, &why),
			 RS_E_INVAL);
	assert_non_null(strstr(why.msg, "gpspm"));
	assert_non_null(strstr(why.msg, "offers: staged"));
	assert_int_equal(rs_method_choose(no_apm, RS_METHOD_APM, &m, &why),
			 RS_E_INVAL);
	assert_non_null(strstr(why.msg, "declares direct write to PMem"));
	assert_non_null(strstr(why.msg, "gpspm, staged"));
	assert_int_equal(rs_method_choose(0, RS_METHOD_AUTO, &m, &why),
			 RS_E_INVAL);
}

static struct sockaddr_in v4(const char *text)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	inet_pton(AF_INET, text, &sa.sin_addr);
	return sa;
}

static struct sockaddr_in6 v6(const char *text)
{
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6};
	inet_pton(AF_INET6, text, &sa.sin6_addr);
	return sa;
}

static void cidr_ranges(void **state)
{
	(void)state;
	struct rs_cidr c;
	assert_null(rs_cidr_parse("192.0.2.0/24", &c));
	struct sockaddr_in in = v4("192.0.2.77"), out = v4("192.0.3.1");
	assert_true(rs_cidr_match(&c, (struct sockaddr *)&in));
	assert_false(rs_cidr_match(&c, (struct sockaddr *)&out));
	struct sockaddr_in6 mapped = v6("::ffff:192.0.2.9");
	assert_true(rs_cidr_match(&c, (struct sockaddr *)&mapped));

	assert_null(rs_cidr_parse("192.0.2.2", &c)); /* one address */
	struct sockaddr_in two = v4("192.0.2.2"), three = v4("192.0.2.3");
	assert_true(rs_cidr_match(&c, (struct sockaddr *)&two));
	assert_false(rs_cidr_match(&c, (struct sockaddr *)&three));

	assert_null(rs_cidr_parse("10.1.2.3/0", &c)); /* everyone */
	assert_true(rs_cidr_match(&c, (struct sockaddr *)&out));

	assert_null(rs_cidr_parse("fe80::/10", &c));
	struct sockaddr_in6 link = v6("fe80::1"), global = v6("2001:db8::1");
	assert_true(rs_cidr_match(&c, (struct sockaddr *)&link));
	assert_false(rs_cidr_match(&c, (struct sockaddr *)&global));
	assert_false(rs_cidr_match(&c, (struct sockaddr *)&in));

	assert_null(rs_cidr_parse("192.0.2.128/25", &c));
	assert_false(rs_cidr_match(&c, (struct sockaddr *)&in));

	assert_non_null(rs_cidr_parse("192.0.2.0/33", &c));
	assert_non_null(rs_cidr_parse("192.0.2.0/", &c));
	assert_non_null(rs_cidr_parse("192.0.2.0/x", &c));
	assert_non_null(rs_cidr_parse("host.example/24", &c));
	assert_non_null(rs_cidr_parse("", &c));
	assert_non_null(rs_cidr_parse("/24", &c));
	assert_non_null(rs_cidr_parse("fe80::/129", &c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sizes),
	    cmocka_unit_test(endpoints),
	    cmocka_unit_test(targets_with_names),
	    cmocka_unit_test(targets_refused),
	    cmocka_unit_test(target_spans),
	    cmocka_unit_test(target_labels),
	    cmocka_unit_test(method_names),
	    cmocka_unit_test(method_choice),
	    cmocka_unit_test(cidr_ranges),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
