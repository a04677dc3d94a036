/* The settings' flags: the table's rows read from the command line with
 * the file's checks, their argp options built from the rows. */
#include "config/flags.h"

#include "cli/option_argp.h"
#include "settings/value.h"

#include <stdio.h>
#include <string.h>

void settings_flags_init(struct settings_flags *f)
{
	memset(f, 0, sizeof(*f));
	recv_settings_init(&f->globals);
	recv_log_settings_init(&f->log);
}

const struct cli_option *settings_flags_row(int key)
{
	return cli_option_by_key(&settings_table, key);
}

int settings_flags_parse(struct settings_flags *f, const struct cli_option *row,
			 const char *arg, struct rs_error *err)
{
	/* `--auth-key ''` must not read as "no key", nor '' as a path. */
	if (arg && !*arg)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--%s: an empty value; give %s", row->name,
				    row->arg ? row->arg : "a value");
	struct settings_input in = {row, SETTINGS_FROM_FLAG, 0};
	bool global = row->scope == SETTINGS_GLOBAL;
	int rc = settings_value_parse(
	    &in, arg, global ? (void *)&f->globals : (void *)&f->log, err);
	if (!rc && global)
		f->given |= UINT32_C(1) << settings_row_index(row);
	return rc;
}

void settings_flags_override(const struct settings_flags *f,
			     struct recv_settings *s)
{
	for (size_t i = 0; i < settings_table.nrows; i++)
		if (f->given & (UINT32_C(1) << i))
			settings_value_copy(&settings_table.rows[i], s,
					    &f->globals);
}

/* ---- argp ---- */

/* The row's help, and its default where there is one to say. */
static const char *help_of(const struct cli_option *row, char *buf, size_t len)
{
	char def[64];
	settings_value_show_default(row, def, sizeof(def));
	return cli_option_help_with_default(row, def, buf, len);
}

static error_t flag_parse(int key, char *arg, struct argp_state *state)
{
	const struct cli_option *row = settings_flags_row(key);
	if (!row)
		return ARGP_ERR_UNKNOWN;
	struct rs_error err = {0};
	if (settings_flags_parse(state->input, row, arg, &err))
		argp_error(state, "%s", err.msg);
	return 0;
}

const struct argp *settings_flags_argp(void)
{
	static struct cli_option_argp options;
	static struct argp argp = {options.options, flag_parse, 0, 0, 0, 0, 0};
	if (!options.options[0].name)
		cli_option_argp_fill(&options, &settings_table, help_of);
	return &argp;
}
