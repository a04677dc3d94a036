/* The option engine of both programs (cli/option.h, option_argp.h,
 * option_value.h) over a table of its own: keys and names, the rows as
 * argp's options (file-only keys left out, optional arguments, help with
 * the default as it is typed), each type's check and its message, the
 * store into fields of every size, handlers, defaults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/option.h"
#include "cli/option_argp.h"
#include "cli/option_value.h"
#include "error.h"

#include <stdbool.h>
#include <string.h>

struct owner {
	bool flag;
	uint16_t small;
	uint32_t count;
	uint64_t size, ms;
	const char *text;
	unsigned handled;
	uint64_t handled_value;
};

static int count_calls(void *owner, const char *arg, uint64_t value,
		       struct rs_error *err)
{
	struct owner *o = owner;
	if (arg && !strcmp(arg, "no"))
		return rs_error_set(err, RS_E_INVAL, 0, "--text: not 'no'");
	o->handled++;
	o->handled_value = value;
	return 0;
}

#define FIELD(m)                                                               \
	.offset = offsetof(struct owner, m),                                   \
	.size = sizeof(((struct owner *)0)->m)

static const struct cli_option rows[] = {
    {.name = "flag",
     .short_flag = 'f',
     .type = CLI_OPTION_FLAG,
     FIELD(flag),
     .help = "A flag"},
    {.name = "small",
     .arg = "N",
     .type = CLI_OPTION_COUNT,
     .min = 1,
     .max = 9,
     .has_default = true,
     .def = 3,
     .default_in_help = true,
     FIELD(small),
     .help = "A small count"},
    {.name = "count",
     .arg = "N",
     .type = CLI_OPTION_COUNT,
     .min = 0,
     .max = 100000,
     FIELD(count),
     .handler = count_calls,
     .help = "A count"},
    {.name = "file-key",
     .type = CLI_OPTION_PATH,
     .file_only = true,
     .help = "Only in a file"},
    {.name = "size",
     .arg = "SIZE",
     .type = CLI_OPTION_SIZE,
     .min = 1,
     .max = 1u << 30,
     .has_default = true,
     .def = 1u << 20,
     .default_in_help = true,
     FIELD(size),
     .help = "A size"},
    {.name = "wait",
     .arg = "TIME",
     .type = CLI_OPTION_DURATION,
     .min = 0,
     .max = 60000,
     .has_default = true,
     .def = 5000,
     .default_in_help = true,
     .default_note = "; 0: never",
     FIELD(ms),
     .help = "A wait"},
    {.name = "text",
     .arg = "WORD",
     .arg_optional = true,
     .type = CLI_OPTION_TEXT,
     FIELD(text),
     .handler = count_calls,
     .help = "A word"},
};
static const struct cli_option_table table = {
    rows, sizeof(rows) / sizeof(*rows), 0x300};

static void keys_and_names(void **state)
{
	(void)state;
	assert_int_equal(cli_option_key(&table, &rows[0]), 'f');
	assert_int_equal(cli_option_key(&table, &rows[2]), 0x302);
	assert_ptr_equal(cli_option_by_key(&table, 'f'), &rows[0]);
	assert_ptr_equal(cli_option_by_key(&table, 0x306), &rows[6]);
	assert_null(cli_option_by_key(&table, 0x303)); /* file only */
	assert_null(cli_option_by_key(&table, 0x307));
	assert_ptr_equal(cli_option_find(&table, "file-key"), &rows[3]);
	assert_null(cli_option_find(&table, "nothing"));
}

static void argp_options(void **state)
{
	(void)state;
	static struct cli_option_argp a;
	cli_option_argp_fill(&a, &table, cli_option_help);
	const char *names[] = {"flag", "small", "count",
			       "size", "wait",	"text"};
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(a.options[i].name, names[i]);
	assert_null(a.options[6].name);
	assert_int_equal(a.options[0].key, 'f');
	assert_null(a.options[0].arg);
	assert_int_equal(a.options[5].flags, OPTION_ARG_OPTIONAL);
	assert_string_equal(a.options[1].doc, "A small count (default 3)");
	assert_string_equal(a.options[2].doc, "A count");
	assert_string_equal(a.options[3].doc, "A size (default 1M)");
	assert_string_equal(a.options[4].doc, "A wait (default 5s; 0: never)");
}

/* What parsing arg as the row's option says: "" when it is taken. */
static const char *parse(struct owner *o, const char *name, const char *arg)
{
	static struct rs_error err;
	memset(&err, 0, sizeof(err));
	int rc = cli_option_parse(cli_option_find(&table, name), o, arg, &err);
	assert_int_equal(rc != 0, err.msg[0] != 0);
	return err.msg;
}

static void values(void **state)
{
	(void)state;
	struct owner o;
	memset(&o, 0xff, sizeof(o));
	o.handled = 0;
	cli_option_defaults(&table, &o);
	assert_int_equal(o.small, 3);
	assert_int_equal(o.size, 1u << 20);
	assert_int_equal(o.ms, 5000);
	assert_int_equal(o.count, UINT32_MAX); /* no default: untouched */
	assert_string_equal(parse(&o, "flag", 0), "");
	assert_true(o.flag);
	assert_string_equal(parse(&o, "small", "9"), "");
	assert_int_equal(o.small, 9);
	assert_string_equal(parse(&o, "small", "10"),
			    "--small: '10' must be a number from 1 to 9");
	assert_string_equal(parse(&o, "small", "+5"),
			    "--small: '+5' must be a number from 1 to 9");
	assert_string_equal(parse(&o, "count", "70000"), "");
	assert_int_equal(o.count, 70000);
	assert_int_equal(o.handled, 1);
	assert_int_equal(o.handled_value, 70000);
	assert_string_equal(parse(&o, "size", "64K"), "");
	assert_int_equal(o.size, 64u << 10);
	assert_string_equal(parse(&o, "size", "2G"),
			    "--size: '2G' must be a size from 1 to 1G (such "
			    "as 64K or 1M)");
	assert_string_equal(parse(&o, "wait", "2s"), "");
	assert_int_equal(o.ms, 2000);
	assert_string_equal(parse(&o, "wait", "250"), "");
	assert_int_equal(o.ms, 250); /* a bare number is milliseconds */
	assert_string_equal(
	    parse(&o, "wait", "2m"),
	    "--wait: '2m' must be a duration from 0 ms to 1 min "
	    "(such as 500ms, 5s or 2m; a bare number is "
	    "milliseconds)");
	assert_string_equal(parse(&o, "text", "word"), "");
	assert_string_equal(o.text, "word");
	assert_string_equal(parse(&o, "text", "no"), "--text: not 'no'");
	assert_string_equal(parse(&o, "text", 0), "");
	assert_null(o.text);
	assert_int_equal(o.handled, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(keys_and_names),
	    cmocka_unit_test(argp_options),
	    cmocka_unit_test(values),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
