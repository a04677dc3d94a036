/* The values of settings: the ops of each type, chosen here from the row
 * (settings/number.c, settings/text.c), and how their messages name the
 * setting. */
#include "settings/value.h"

#include "settings/value_ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct settings_value_ops *const type_ops[] = {
    [CLI_OPTION_COUNT] = &settings_number_ops,
    [CLI_OPTION_PORT] = &settings_number_ops,
    [CLI_OPTION_SIZE] = &settings_number_ops,
    [CLI_OPTION_DURATION] = &settings_number_ops,
    [CLI_OPTION_PERCENT] = &settings_number_ops,
    [CLI_OPTION_BOOL] = &settings_bool_ops,
    [CLI_OPTION_ADDRESS] = &settings_address_ops,
    [CLI_OPTION_PATH] = &settings_path_ops,
    [CLI_OPTION_KEY_FILE] = &settings_key_file_ops,
    [CLI_OPTION_CIDR_LIST] = &settings_cidr_list_ops,
    [CLI_OPTION_METHOD_LIST] = &settings_method_list_ops,
};

static const struct settings_value_ops *ops_of(const struct cli_option *row)
{
	return type_ops[row->type];
}

int settings_value_parse(const struct settings_input *in, const char *text,
			 void *owner, struct rs_error *err)
{
	return ops_of(in->row)->parse(in, text, owner, err);
}

void settings_value_defaults(enum settings_scope scope, void *owner)
{
	for (size_t i = 0; i < settings_table.nrows; i++)
		if (settings_table.rows[i].scope == scope)
			ops_of(&settings_table.rows[i])
			    ->set_default(&settings_table.rows[i], owner);
}

bool settings_value_equal(const struct cli_option *row, const void *a,
			  const void *b)
{
	return ops_of(row)->equal(row, a, b);
}

void settings_value_copy(const struct cli_option *row, void *dst,
			 const void *src)
{
	memcpy((char *)dst + row->offset, (const char *)src + row->offset,
	       row->size);
}

const char *settings_value_show_default(const struct cli_option *row, char *buf,
					size_t len)
{
	return ops_of(row)->show_default(row, buf, len);
}

const char *settings_value_no_default(const struct cli_option *row, char *buf,
				      size_t len)
{
	(void)row;
	if (len)
		buf[0] = '\0';
	return buf;
}

/* err = "HEAD" followed by what. */
static int bad(struct rs_error *err, const char *head, const char *what,
	       va_list ap)
{
	char tail[sizeof(err->msg)];
	vsnprintf(tail, sizeof(tail), what, ap);
	return rs_error_set(err, RS_E_INVAL, 0, "%s%s", head, tail);
}

int settings_value_bad(const struct settings_input *in, const char *text,
		       struct rs_error *err, const char *what, ...)
{
	char head[sizeof(err->msg)];
	if (in->from == SETTINGS_FROM_FLAG)
		snprintf(head, sizeof(head), "--%s: '%s'", in->row->name, text);
	else
		snprintf(head, sizeof(head), "%s '%s'", in->row->name, text);
	va_list ap;
	va_start(ap, what);
	int rc = bad(err, head, what, ap);
	va_end(ap);
	return rc;
}

int settings_value_bad_name(const struct settings_input *in,
			    struct rs_error *err, const char *what, ...)
{
	char head[64];
	if (in->from == SETTINGS_FROM_FLAG)
		snprintf(head, sizeof(head), "--%s", in->row->name);
	else
		snprintf(head, sizeof(head), "%s", in->row->name);
	va_list ap;
	va_start(ap, what);
	int rc = bad(err, head, what, ap);
	va_end(ap);
	return rc;
}
