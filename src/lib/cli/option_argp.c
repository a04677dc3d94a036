/* The rows as argp options, and the help that says a default. */
#include "cli/option_argp.h"

#include "cli/option_value.h"
#include "cli/size.h"
#include "error.h"

#include <stdio.h>

void cli_option_argp_fill(struct cli_option_argp *out,
			  const struct cli_option_table *t,
			  cli_option_help_of help_of)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nrows && i < CLI_OPTION_ROWS_MAX; i++) {
		const struct cli_option *row = &t->rows[i];
		if (row->file_only)
			continue;
		out->options[n++] = (struct argp_option){
		    row->name,
		    cli_option_key(t, row),
		    row->arg,
		    row->arg_optional ? OPTION_ARG_OPTIONAL : 0,
		    help_of(row, out->help[i], sizeof(out->help[i])),
		    0};
	}
	out->options[n] = (struct argp_option){0};
}

bool cli_option_argp_parse(const struct cli_option_table *t, void *owner,
			   int key, const char *arg, struct argp_state *state)
{
	const struct cli_option *row = cli_option_by_key(t, key);
	if (!row)
		return false;
	struct rs_error err = {0};
	if (cli_option_parse(row, owner, arg, &err))
		argp_error(state, "%s", err.msg);
	return true;
}

const char *cli_option_help_with_default(const struct cli_option *row,
					 const char *def, char *buf, size_t len)
{
	if (!*def)
		return row->help;
	snprintf(buf, len, "%s (default %s%s)", row->help, def,
		 row->default_note ? row->default_note : "");
	return buf;
}

/* The default as it is typed: 1M, 5ms, 5s. */
static void show_default(const struct cli_option *row, char *buf, size_t len)
{
	unsigned long long v = row->def;
	if (row->type == CLI_OPTION_SIZE)
		rs_size_show(v, buf, len);
	else if (row->type == CLI_OPTION_DURATION && v && v % 1000 == 0)
		snprintf(buf, len, "%llus", v / 1000);
	else if (row->type == CLI_OPTION_DURATION)
		snprintf(buf, len, "%llums", v);
	else
		snprintf(buf, len, "%llu", v);
}

const char *cli_option_help(const struct cli_option *row, char *buf, size_t len)
{
	char def[32] = "";
	if (row->default_in_help)
		show_default(row, def, sizeof(def));
	return cli_option_help_with_default(row, def, buf, len);
}
