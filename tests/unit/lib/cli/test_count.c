/* Counts as the command line gives them (cli/count.h): plain digits
 * within a range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/count.h"

static void counts_are_plain_digits(void **state)
{
	(void)state;
	uint64_t v = 99;
	assert_true(rs_count_parse("5", 1, 64, &v));
	assert_int_equal(v, 5);
	assert_true(rs_count_parse("064", 1, 64, &v));
	assert_int_equal(v, 64);
	const char *bad[] = {"",
			     "+5",
			     "-5",
			     " 5",
			     "5 ",
			     "5x",
			     "0x10",
			     "1e3",
			     "0",
			     "65",
			     "99999999999999999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		v = 99;
		assert_false(rs_count_parse(bad[i], 1, 64, &v));
		assert_int_equal(v, 99); /* untouched */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(counts_are_plain_digits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
