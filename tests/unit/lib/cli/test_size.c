/* Sizes as the command line and the configuration give them (cli/size.h):
 * 4096, 64M, 1GiB; anything else refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/size.h"
#include "error.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
