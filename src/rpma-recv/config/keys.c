/* The keys of the configuration file: each line `key = value` finds its
 * row of the table, in its place (before any section, or in a log's), once
 * unless it is a list, and its value is read by the row's type. */
#include "config/keys.h"

#include "settings/table.h"
#include "settings/value.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* "unknown key", with the keys that would fit there. */
static int key_unknown(struct settings_reader *r, const char *key)
{
	char names[256] = "";
	enum settings_scope scope = r->in_log ? SETTINGS_LOG : SETTINGS_GLOBAL;
	for (size_t i = 0; i < settings_table.nrows; i++) {
		if (settings_table.rows[i].scope != scope)
			continue;
		size_t used = strlen(names);
		snprintf(names + used, sizeof(names) - used, "%s%s",
			 used ? ", " : "", settings_table.rows[i].name);
	}
	return settings_fail(r, "unknown key '%s' (%s: %s)", key,
			     r->in_log ? "keys of a log" : "global keys",
			     names);
}

static int key_misplaced(struct settings_reader *r, const char *key)
{
	if (r->in_log)
		return settings_fail(r,
				     "'%s' is a global setting: move it "
				     "above the first section (line %u)",
				     key, r->first_section);
	return settings_fail(r,
			     "'%s' is a setting of a log: put it in the "
			     "log's section, after its `[name]` line",
			     key);
}

/* As rsyncd.conf takes its keys: case does not matter, and a space or an
 * underscore stands for a dash ("Max Senders" is max-senders). */
static bool key_is(const char *row_name, const char *key)
{
	for (;; row_name++, key++) {
		char k = *key == ' ' || *key == '_' ? '-' : *key;
		if (tolower((unsigned char)k) != *row_name)
			return false;
		if (!*row_name)
			return true;
	}
}

static const struct cli_option *key_find(const char *key)
{
	for (size_t i = 0; i < settings_table.nrows; i++)
		if (key_is(settings_table.rows[i].name, key))
			return &settings_table.rows[i];
	return 0;
}

int settings_key_apply(struct settings_reader *r, const char *key,
		       const char *value)
{
	const struct cli_option *row = key_find(key);
	if (!row)
		return key_unknown(r, key);
	if ((row->scope == SETTINGS_LOG) != r->in_log)
		return key_misplaced(r, key);
	unsigned *set_on = &r->key_line[settings_row_index(row)];
	if (*set_on && !row->repeatable)
		return settings_fail(r,
				     "'%s' is given twice (also on line %u): "
				     "keep one",
				     key, *set_on);
	struct settings_input in = {row, SETTINGS_FROM_FILE, r->log.name};
	void *owner = r->in_log ? (void *)&r->log : (void *)&r->s;
	int rc = settings_value_parse(&in, value, owner, r->err);
	if (rc)
		return rs_error_wrap(r->err, "%s:%u", r->s.path, r->line);
	if (!*set_on)
		*set_on = r->line;
	return 0;
}

void settings_keys_forget_log(struct settings_reader *r)
{
	for (size_t i = 0; i < settings_table.nrows; i++)
		if (settings_table.rows[i].scope == SETTINGS_LOG)
			r->key_line[i] = 0;
}

unsigned settings_key_line(const struct settings_reader *r, const char *key)
{
	const struct cli_option *row = cli_option_find(&settings_table, key);
	return row ? r->key_line[settings_row_index(row)] : 0;
}
