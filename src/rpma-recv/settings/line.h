/* One line of rpma-recv's configuration file, split into its parts: blank
 * or comment, `[name]`, or `key = value`. Knows the syntax only, not the
 * keys (config/keys.h) nor the file (config/load.c). */
#ifndef RECV_SETTINGS_LINE_H
#define RECV_SETTINGS_LINE_H

#include "error.h"

/* Longest line accepted, without its newline: a longer one is a mistake
 * (a binary file, a missing newline), never a setting. */
#define SETTINGS_LINE_MAX 4096

enum settings_line_kind {
	SETTINGS_LINE_NOTHING, /* blank, or a comment (`#` or `;` first) */
	SETTINGS_LINE_SECTION, /* [name] */
	SETTINGS_LINE_PAIR,    /* key = value */
};

struct settings_line {
	enum settings_line_kind kind;
	char *name;  /* the section's name or the key, inside the text */
	char *value; /* of a pair */
};

/* Splits text in place (trimming white space around every part). Returns 0,
 * or RS_E_INVAL with what is wrong with the line and how to write it
 * instead. */
int settings_line_split(char *text, struct settings_line *line,
			struct rs_error *err);

/* The next item of a list separated by commas and/or white space, cut out
 * of the text in place, or NULL after the last. *cursor starts at the
 * list's text and moves on with each item. */
char *settings_list_next(char **cursor);

#endif
