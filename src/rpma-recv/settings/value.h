/* The value of a setting: one parser and range check per type of
 * settings/table.h, with one message format, the same for a line of the
 * configuration file and for a command-line flag; a value's default,
 * comparison and copy.
 *
 * A message names the setting the way it was given: "credits '0' must be a
 * number from 1 to 64" for a key (the caller puts "FILE:LINE: " before
 * it), "--credits: '0' must be 1 to 64" for a flag, whose argument's name
 * in --help (N, SIZE) already says the kind. A value that is not of the
 * kind at all says so at the end ("; 'lots' is not a size"). */
#ifndef RECV_SETTINGS_VALUE_H
#define RECV_SETTINGS_VALUE_H

#include "error.h"
#include "settings/table.h"

#include <stdbool.h>
#include <stddef.h>

/* A value to read: for which row, from where, in which log. */
struct settings_input {
	const struct cli_option *row;
	enum settings_source from;
	const char *log_name; /* the file's section being read, or NULL */
};

/* Reads text (NULL: a flag without argument) into the row's field in
 * owner (settings_row_field): a list adds to what is there, anything else
 * replaces it. An auth key named in the file is loaded here, so that a
 * file that cannot be used is reported with its line; a flag's is loaded
 * by the caller. Returns RS_E_INVAL (or RS_E_NOMEM) with one line in err,
 * the field unchanged but for the items of a list before the bad one. */
int settings_value_parse(const struct settings_input *in, const char *text,
			 void *owner, struct rs_error *err);

/* Sets the fields of every row of the scope in owner to their defaults
 * (the caller zeroes what is not a setting). */
void settings_value_defaults(enum settings_scope scope, void *owner);

/* Whether the row's field holds the same value in a and b (two owners). */
bool settings_value_equal(const struct cli_option *row, const void *a,
			  const void *b);

/* The row's field of src into dst (two owners). */
void settings_value_copy(const struct cli_option *row, void *dst,
			 const void *src);

/* The default as --help says it ("8", "1M", "10 s"), "" where there is
 * none to say (a flag that takes no argument, a path). */
const char *settings_value_show_default(const struct cli_option *row, char *buf,
					size_t len);

#endif
