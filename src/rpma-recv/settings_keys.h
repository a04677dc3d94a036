/* What each key of rpma-recv's configuration file means: the form and
 * range of its value, where it belongs (before any section, or in a log's
 * section) and whether it may repeat. */
#ifndef RECV_SETTINGS_KEYS_H
#define RECV_SETTINGS_KEYS_H

#include "settings_reader.h"

/* What a log has before its keys: every method, no rule, no key. */
void settings_log_defaults(struct recv_log_settings *log);

/* Applies `key = value` of the reader's line to the global settings or to
 * the log of the section being read; RS_E_INVAL with FILE:LINE when the
 * key is unknown, out of place, repeated, or its value is bad. */
int settings_key_apply(struct settings_reader *r, const char *key, char *value);

/* A new section begins: its keys are not set yet. */
void settings_keys_forget_log(struct settings_reader *r);

/* The line that set key, 0 if none did (in this section for a log's). */
unsigned settings_key_line(const struct settings_reader *r, const char *key);

#endif
