/* The state of reading one configuration file into recv_settings: where
 * the reader is, the log whose section it is in, and where each key was
 * set, so that every message can name its line (and a second line when
 * two disagree). Shared by config/load.c (lines and sections) and
 * config/keys.c (the keys). */
#ifndef RECV_SETTINGS_READER_H
#define RECV_SETTINGS_READER_H

#include "error.h"
#include "settings/settings.h"
#include "settings/table.h"

#include <stdbool.h>

struct settings_reader {
	struct recv_settings s; /* built here, moved to the caller's at end */
	unsigned line;		/* the line being read, from 1 */
	bool in_log;		/* after the first [name] */
	unsigned first_section; /* line of the first [name], 0 before */
	unsigned nlogs_read;	/* sections finished */
	struct recv_log_settings log; /* of the section being read */
	/* Line that set each row's key, 0: not yet; a log's keys start
	 * over with each section. */
	unsigned key_line[CLI_OPTION_ROWS_MAX];
	struct rs_error *err;
};

/* Sets err to "FILE:LINE: " and the text, for line (the reader's own line
 * when 0), and returns RS_E_INVAL. */
int settings_fail_at(const struct settings_reader *r, unsigned line,
		     const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define settings_fail(r, ...) settings_fail_at((r), 0, __VA_ARGS__)

#endif
