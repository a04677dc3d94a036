/* Where a log's tail ends across a rotation (commands/resume_split.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "commands/resume_split.h"

#include <string.h>

#define U8(s) ((const uint8_t *)(s))

/* The log ended 5 bytes into the newer file: found there. */
static void a_tail_across_a_rotation_ends_in_the_newer_file(void **state)
{
	(void)state;
	const char *older = "line 1\nline 2\nline 3\n", *newer = "line 4\nli";
	const char *tail = "line 2\nline 3\nline";
	assert_int_equal(resume_split_at(U8(tail), strlen(tail), U8(older),
					 strlen(older), U8(newer),
					 strlen(newer)),
			 4);
}

/* Nothing of it in the newer file, or the older does not end with the
 * rest, or it is all in one file: none. */
static void no_split_where_the_files_do_not_hold_it(void **state)
{
	(void)state;
	const char *tail = "line 2\nline 3\nline";
	assert_int_equal(resume_split_at(U8(tail), strlen(tail),
					 U8("line 1\nline 2\nline 9\n"), 21,
					 U8("line 4\n"), 7),
			 0);
	assert_int_equal(resume_split_at(U8(tail), strlen(tail),
					 U8("line 1\nline 2\nline 3\n"), 21,
					 U8("other\n"), 6),
			 0);
	assert_int_equal(resume_split_at(U8("ab"), 1, U8("xa"), 2, U8("b"), 1),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_tail_across_a_rotation_ends_in_the_newer_file),
	    cmocka_unit_test(no_split_where_the_files_do_not_hold_it),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
