/* The reload rule of each row applied to the settings in force. */
#include "config/reload.h"

#include "settings/table.h"
#include "settings/value.h"

#include <stdio.h>
#include <string.h>

void settings_reload_globals(struct recv_settings *in_force,
			     const struct recv_settings *next)
{
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		if (row->scope == SETTINGS_GLOBAL &&
		    row->reload == SETTINGS_RELOAD_AT_ONCE)
			settings_value_copy(row, in_force, next);
	}
}

bool settings_reload_same_log(const struct recv_log_settings *served,
			      const struct recv_log_settings *next)
{
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		if (row->scope == SETTINGS_LOG &&
		    row->reload == SETTINGS_RELOAD_NEW_LOG &&
		    !settings_value_equal(row, served, next))
			return false;
	}
	return true;
}

/* "a", "a and b", "a, b and c". */
static void names_join(const char *const *names, unsigned n, char *out,
		       size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned k = 0; k < n && used < len; k++) {
		const char *sep = !k ? "" : k == n - 1 ? " and " : ", ";
		int w = snprintf(out + used, len - used, "%s%s", sep, names[k]);
		used += w > 0 ? (size_t)w : 0;
	}
}

unsigned settings_reload_log(struct recv_log_settings *served,
			     const struct recv_log_settings *next,
			     char *changed, size_t len)
{
	struct recv_log_settings before = *served;
	const char *names[CLI_OPTION_ROWS_MAX];
	unsigned n = 0;
	*served = *next;
	for (size_t i = 0; i < settings_table.nrows; i++) {
		const struct cli_option *row = &settings_table.rows[i];
		if (row->scope != SETTINGS_LOG ||
		    row->reload != SETTINGS_RELOAD_RESTART)
			continue;
		if (!settings_value_equal(row, &before, next))
			names[n++] = row->name;
		settings_value_copy(row, served, &before);
	}
	explicit_bzero(&before, sizeof(before)); /* it holds the old key */
	names_join(names, n, changed, len);
	return n;
}
