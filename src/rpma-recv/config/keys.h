/* The keys of rpma-recv's configuration file: where each belongs (before
 * any section, or in a log's section), whether it may repeat, and reading
 * its value, all as the settings table (settings/table.h) says. */
#ifndef RECV_SETTINGS_KEYS_H
#define RECV_SETTINGS_KEYS_H

#include "config/reader.h"

/* Applies `key = value` of the reader's line to the global settings or to
 * the log of the section being read; RS_E_INVAL with FILE:LINE when the
 * key is unknown, out of place, repeated, or its value is bad. */
int settings_key_apply(struct settings_reader *r, const char *key,
		       const char *value);

/* A new section begins: its keys are not set yet. */
void settings_keys_forget_log(struct settings_reader *r);

/* The line that set key, 0 if none did (in this section for a log's). */
unsigned settings_key_line(const struct settings_reader *r, const char *key);

#endif
