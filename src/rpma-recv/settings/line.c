#include "settings/line.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

static char *trim(char *text)
{
	while (isspace((unsigned char)*text))
		text++;
	size_t len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	text[len] = '\0';
	return text;
}

static int section_split(char *text, struct settings_line *line,
			 struct rs_error *err)
{
	size_t len = strlen(text);
	if (text[len - 1] != ']')
		return rs_error_set(
		    err, RS_E_INVAL, 0,
		    "a section line must end with ']': write `[name]`");
	text[len - 1] = '\0';
	line->kind = SETTINGS_LINE_SECTION;
	line->name = trim(text + 1);
	if (!line->name[0])
		return rs_error_set(err, RS_E_INVAL, 0,
				    "empty section name: write `[name]`");
	return 0;
}

static int pair_split(char *text, struct settings_line *line,
		      struct rs_error *err)
{
	char *equals = strchr(text, '=');
	if (!equals)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "missing '=': write `key = value`");
	*equals = '\0';
	line->kind = SETTINGS_LINE_PAIR;
	line->name = trim(text);
	line->value = trim(equals + 1);
	if (!line->name[0])
		return rs_error_set(
		    err, RS_E_INVAL, 0,
		    "missing key before '=': write `key = value`");
	if (!line->value[0])
		return rs_error_set(
		    err, RS_E_INVAL, 0,
		    "empty value: give one after '=' or remove the line");
	return 0;
}

int settings_line_split(char *text, struct settings_line *line,
			struct rs_error *err)
{
	memset(line, 0, sizeof(*line));
	text = trim(text);
	/* Comments are whole lines, as in rsyncd.conf: a '#' after a value
	 * belongs to it (a path may hold one). */
	if (!text[0] || text[0] == '#' || text[0] == ';') {
		line->kind = SETTINGS_LINE_NOTHING;
		return 0;
	}
	if (text[0] == '[')
		return section_split(text, line, err);
	return pair_split(text, line, err);
}

static bool is_separator(char c)
{
	return c == ',' || isspace((unsigned char)c);
}

char *settings_list_next(char **cursor)
{
	char *item = *cursor;
	while (*item && is_separator(*item))
		item++;
	if (!*item)
		return 0;
	char *end = item;
	while (*end && !is_separator(*end))
		end++;
	*cursor = *end ? end + 1 : end;
	*end = '\0';
	return item;
}
