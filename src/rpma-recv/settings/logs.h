/* The array of logs of a recv_settings (malloc'd, nlogs long): growing
 * and copying it. Internal to the settings code; settings/logs.c also
 * holds recv_settings_add_log (settings/settings.h), which checks a log
 * first. */
#ifndef RECV_SETTINGS_LOGS_H
#define RECV_SETTINGS_LOGS_H

#include "error.h"
#include "settings/settings.h"

/* Appends a copy of log, unchecked; RS_E_NOMEM leaves s as it was. */
int settings_logs_append(struct recv_settings *s,
			 const struct recv_log_settings *log,
			 struct rs_error *err);

/* dst becomes a copy of src with logs of its own. */
int settings_copy(struct recv_settings *dst, const struct recv_settings *src,
		  struct rs_error *err);

#endif
