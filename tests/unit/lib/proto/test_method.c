/* Persistence method names (proto/method.h), and the rule that picks a
 * method from what the receiver offers and the pool it serves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "proto/method.h"

#include <string.h>

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

	/* Where offered, flush is the default, before apm too. */
	uint8_t with_flush = all | RS_METHOD_BIT(RS_METHOD_FLUSH);
	assert_int_equal(rs_method_choose(with_flush, RS_METHOD_AUTO, &m, &why),
			 0);
	assert_int_equal(m, RS_METHOD_FLUSH);
	assert_int_equal(
	    rs_method_choose(with_flush, RS_METHOD_GPSPM, &m, &why), 0);
	assert_int_equal(m, RS_METHOD_GPSPM);
	assert_int_equal(rs_method_choose(no_apm, RS_METHOD_FLUSH, &m, &why),
			 RS_E_INVAL);
	assert_non_null(strstr(why.msg, "devdax"));
	assert_non_null(strstr(why.msg, "it offers: gpspm, staged"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(method_names),
	    cmocka_unit_test(method_choice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
