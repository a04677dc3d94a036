/* The follower's ledger of what it could not ship (input/follow_losses.h):
 * one line at the end naming each file or stretch, counted past the ones
 * it names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "input/follow_losses.h"

static void each_loss_is_named_in_one_line(void **state)
{
	(void)state;
	struct follow_losses l = {0};
	char line[512];
	follow_losses_add(&l, "/var/log/app.log.1", 0, FOLLOW_LOSS_WHOLE);
	follow_losses_add(&l, "/var/log/app.log", 100, 250);
	follow_losses_add(&l, "/var/log/app.log.2", 4096, FOLLOW_LOSS_WHOLE);
	size_t n =
	    follow_losses_describe(&l, "not shipped", line, sizeof(line));
	assert_int_equal(n, strlen(line));
	assert_string_equal(line,
			    "3 stretches of followed files were not shipped: "
			    "/var/log/app.log.1 (the whole file), "
			    "/var/log/app.log bytes 100 to 250, "
			    "/var/log/app.log.2 from byte 4096 on");
	assert_null(strchr(line, '\n'));
}

static void one_loss_is_said_in_the_singular(void **state)
{
	(void)state;
	struct follow_losses l = {0};
	char line[256];
	follow_losses_add(&l, "app.log", 7, 9);
	follow_losses_describe(&l, "not shipped", line, sizeof(line));
	assert_string_equal(line, "1 stretch of followed files was not "
				  "shipped: app.log bytes 7 to 9");
}

static void losses_past_the_named_are_counted(void **state)
{
	(void)state;
	struct follow_losses l = {0};
	char line[2048];
	char name[16];
	for (int i = 0; i < FOLLOW_LOSSES_NAMED + 3; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		follow_losses_add(&l, name, 0, FOLLOW_LOSS_WHOLE);
	}
	assert_int_equal(l.n, FOLLOW_LOSSES_NAMED + 3);
	/* the same loss said again (a look tried again) counts once */
	follow_losses_add(&l, "f0", 0, FOLLOW_LOSS_WHOLE);
	assert_int_equal(l.n, FOLLOW_LOSSES_NAMED + 3);
	follow_losses_describe(&l, "not shipped", line, sizeof(line));
	assert_non_null(strstr(line, ", and 3 more (each said above)"));
	assert_int_equal(strncmp(line, "11 stretches", 12), 0);
}

static void a_short_buffer_is_cut_not_overrun(void **state)
{
	(void)state;
	struct follow_losses l = {0};
	char line[40];
	memset(line, 'x', sizeof(line));
	follow_losses_add(&l, "a-rather-long-name-of-a-rotated-file.log.1", 0,
			  FOLLOW_LOSS_WHOLE);
	size_t n = follow_losses_describe(&l, "not shipped", line, 20);
	assert_int_equal(n, 19);
	assert_int_equal(line[19], 0);
	assert_int_equal(line[20], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(each_loss_is_named_in_one_line),
	    cmocka_unit_test(one_loss_is_said_in_the_singular),
	    cmocka_unit_test(losses_past_the_named_are_counted),
	    cmocka_unit_test(a_short_buffer_is_cut_not_overrun),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
