/* Command-line values: sizes, endpoints and method names, and the rule that
 * picks a persistence method. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "endpoint.h"
#include "method.h"
#include "size.h"

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
	assert_int_equal(rs_size_parse("", &v), -1);
	assert_int_equal(rs_size_parse("M", &v), -1);
	assert_int_equal(rs_size_parse("-1", &v), -1);
	assert_int_equal(rs_size_parse("12X", &v), -1);
	assert_int_equal(rs_size_parse("12Mx", &v), -1);
	assert_int_equal(rs_size_parse("99999999999T", &v), -1);
	assert_int_equal(rs_size_parse("99999999999999999999", &v), -1);
}

static void endpoints(void **state)
{
	(void)state;
	struct rs_endpoint ep;
	assert_null(rs_endpoint_parse("pmemhost", &ep));
	assert_string_equal(ep.host, "pmemhost");
	assert_string_equal(ep.port, RS_DEFAULT_PORT);
	assert_null(rs_endpoint_parse("192.0.2.1:9000", &ep));
	assert_string_equal(ep.host, "192.0.2.1");
	assert_string_equal(ep.port, "9000");
	assert_null(rs_endpoint_parse("[fe80::1]:7", &ep));
	assert_string_equal(ep.host, "fe80::1");
	assert_string_equal(ep.port, "7");
	assert_null(rs_endpoint_parse(":7300", &ep));
	assert_string_equal(ep.host, "");
	assert_string_equal(ep.port, "7300");
	assert_non_null(rs_endpoint_parse("host:0", &ep));
	assert_non_null(rs_endpoint_parse("host:65536", &ep));
	assert_non_null(rs_endpoint_parse("host:http", &ep));
	assert_non_null(rs_endpoint_parse("host:+80", &ep));
	assert_non_null(rs_endpoint_parse("host: 80", &ep));
	assert_non_null(rs_endpoint_parse("fe80::1", &ep));
	assert_non_null(rs_endpoint_parse("[fe80::1", &ep));
	assert_non_null(rs_endpoint_parse("", &ep));
	assert_non_null(rs_endpoint_parse("host:123456789", &ep));
}

static void method_names(void **state)
{
	(void)state;
	enum rs_method m;
	assert_int_equal(rs_method_parse("staged", &m), 0);
	assert_int_equal(m, RS_METHOD_STAGED);
	assert_int_equal(rs_method_parse("GPSPM", &m), -1);
	assert_string_equal(rs_method_name(RS_METHOD_APM), "apm");
}

static void method_choice(void **state)
{
	(void)state;
	enum rs_method m;
	char why[256];
	uint8_t all = RS_METHOD_BIT(RS_METHOD_APM) |
		      RS_METHOD_BIT(RS_METHOD_GPSPM) |
		      RS_METHOD_BIT(RS_METHOD_STAGED);
	assert_int_equal(rs_method_choose(all, RS_METHOD_AUTO, &m, why, 256),
			 0);
	assert_int_equal(m, RS_METHOD_APM);
	uint8_t no_apm = all & ~RS_METHOD_BIT(RS_METHOD_APM);
	assert_int_equal(rs_method_choose(no_apm, RS_METHOD_AUTO, &m, why, 256),
			 0);
	assert_int_equal(m, RS_METHOD_GPSPM);
	assert_int_equal(
	    rs_method_choose(no_apm, RS_METHOD_STAGED, &m, why, 256), 0);
	assert_int_equal(m, RS_METHOD_STAGED);

	/* fsdax on rxe: staged only; asking for gpspm names what works. */
	uint8_t staged = RS_METHOD_BIT(RS_METHOD_STAGED);
	assert_int_equal(
	    rs_method_choose(staged, RS_METHOD_GPSPM, &m, why, 256), -1);
	assert_non_null(strstr(why, "gpspm"));
	assert_non_null(strstr(why, "offers: staged"));
	assert_int_equal(rs_method_choose(no_apm, RS_METHOD_APM, &m, why, 256),
			 -1);
	assert_non_null(strstr(why, "--direct-write-to-pmem"));
	assert_non_null(strstr(why, "gpspm, staged"));
	assert_int_equal(rs_method_choose(0, RS_METHOD_AUTO, &m, why, 256), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sizes),
	    cmocka_unit_test(endpoints),
	    cmocka_unit_test(method_names),
	    cmocka_unit_test(method_choice),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
