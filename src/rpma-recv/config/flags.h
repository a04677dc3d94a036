/* The settings given as command-line flags, the rows of the settings
 * table that have one: their argp options (--help from the rows, with
 * their defaults), reading them with the same checks as the file's keys,
 * and the global ones overriding the file's. */
#ifndef RECV_SETTINGS_FLAGS_H
#define RECV_SETTINGS_FLAGS_H

#include "error.h"
#include "settings/settings.h"
#include "settings/table.h"

#include <argp.h>
#include <stdint.h>

struct settings_flags {
	struct recv_settings globals; /* the global ones given, no logs */
	struct recv_log_settings log; /* for every log of the command line */
	uint32_t given;		      /* a bit per global row given here */
};

/* Every setting at its default, none given. */
void settings_flags_init(struct settings_flags *f);

/* The argp parser of the flags, for a child of the program's parser whose
 * input is a struct settings_flags. Its options use the rows' short
 * letters and the table's keys (settings/table.h). */
const struct argp *settings_flags_argp(void);

/* The row of an argp key, NULL if none. */
const struct cli_option *settings_flags_row(int key);

/* Reads the flag of row (arg NULL for one that takes none) into f; on a
 * bad value RS_E_INVAL with "--FLAG: 'ARG' ..." in err. */
int settings_flags_parse(struct settings_flags *f, const struct cli_option *row,
			 const char *arg, struct rs_error *err);

/* The global settings given as flags, over those in s (the file's). */
void settings_flags_override(const struct settings_flags *f,
			     struct recv_settings *s);

#endif
