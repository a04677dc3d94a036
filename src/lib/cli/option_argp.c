/* The rows as argp options, and the help that says a default. */
#include "cli/option_argp.h"

#include "cli/option_value.h"
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
