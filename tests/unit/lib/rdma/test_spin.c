/* Adaptive completion waiting: spin while waits are short, sleep through
 * long ones, and learn again quickly after an idle spell. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rdma/spin.h"

#define US 1000ull

static void nothing_learned_means_sleep(void **state)
{
	(void)state;
	struct rs_spin s = {0};
	assert_int_equal(rs_spin_until(&s, 5000 * US), 0);
}

static void short_waits_spin_twice_as_long(void **state)
{
	(void)state;
	struct rs_spin s = {0};
	for (int i = 0; i < 8; i++)
		rs_spin_observe(&s, 100 * US);
	assert_int_equal(rs_spin_until(&s, 5000 * US), 5200 * US);
}

static void long_waits_are_slept_through(void **state)
{
	(void)state;
	struct rs_spin s = {0};
	for (int i = 0; i < 8; i++)
		rs_spin_observe(&s, 20000 * US); /* a line every 20 ms */
	assert_int_equal(rs_spin_until(&s, 5000 * US), 0);
}

static void an_idle_spell_is_forgotten_within_a_few_waits(void **state)
{
	(void)state;
	struct rs_spin s = {0};
	for (int i = 0; i < 8; i++)
		rs_spin_observe(&s, 100 * US);
	rs_spin_observe(&s, 60ull * 1000000 * US); /* a minute without input */
	assert_int_equal(rs_spin_until(&s, 0), 0);
	int waits = 0;
	while (rs_spin_until(&s, 0) == 0 && waits < 100) {
		rs_spin_observe(&s, 100 * US);
		waits++;
	}
	assert_in_range(waits, 1, 8);
	/* and never spins for longer than twice the cap */
	assert_true(rs_spin_until(&s, 0) <= 2 * RS_SPIN_CAP_NS);
}

static void a_zero_wait_still_counts_as_learned(void **state)
{
	(void)state;
	struct rs_spin s = {0};
	rs_spin_observe(&s, 0);
	assert_true(rs_spin_until(&s, 7) >= 7);
	assert_true(rs_spin_until(&s, 7) != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(nothing_learned_means_sleep),
	    cmocka_unit_test(short_waits_spin_twice_as_long),
	    cmocka_unit_test(long_waits_are_slept_through),
	    cmocka_unit_test(an_idle_spell_is_forgotten_within_a_few_waits),
	    cmocka_unit_test(a_zero_wait_still_counts_as_learned),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
