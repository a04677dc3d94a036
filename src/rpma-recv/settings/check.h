/* The checks of one log against the settings it joins, the same for a
 * section of the configuration file and for `--log NAME=POOL`: its name,
 * its pool (one log per pool), room for it. A message starts with the
 * place: "FILE:LINE" (line > 0, of s->path) or "--log NAME=POOL". */
#ifndef RECV_SETTINGS_CHECK_H
#define RECV_SETTINGS_CHECK_H

#include "error.h"
#include "settings/settings.h"

#include <stddef.h>

/* "FILE:LINE" for line > 0, else how the log was given on the command
 * line ("--log NAME=POOL", or "POOL" for the unnamed log). */
const char *settings_place(const struct recv_settings *s,
			   const struct recv_log_settings *log, unsigned line,
			   char *buf, size_t len);

/* A valid name that no log of s has; the unnamed log only alone. */
int settings_check_name(const struct recv_settings *s,
			const struct recv_log_settings *log, unsigned line,
			struct rs_error *err);

/* The log's methods fit its other settings: an append-only log offers
 * staged. */
int settings_check_methods(const struct recv_settings *s,
			   const struct recv_log_settings *log, unsigned line,
			   struct rs_error *err);

/* Room in s for one more log (RECV_LOGS_MAX). */
int settings_check_room(const struct recv_settings *s,
			const struct recv_log_settings *log, unsigned line,
			struct rs_error *err);

/* A pool no log of s uses, by path or (existing files) by device and
 * inode. */
int settings_check_pool_free(const struct recv_settings *s,
			     const struct recv_log_settings *log, unsigned line,
			     struct rs_error *err);

/* The pool exists, or the log says how big to create it. Only looks: an
 * existing file is checked as a pool when it is opened. The fix named is
 * `create = SIZE` for a line of the file, --create SIZE for line 0. */
int settings_check_pool_exists(const struct recv_settings *s,
			       const struct recv_log_settings *log,
			       unsigned line, struct rs_error *err);

#endif
