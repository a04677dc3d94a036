/* What a reload (SIGHUP) changes in the settings in force, as each row of
 * the settings table says (settings/table.h, enum settings_reload): a
 * global that applies at once is taken, the others wait for a restart; a
 * log that stays takes its new rules for new connections and keeps what
 * needs a restart; a log whose pool changed is another log. Decides only:
 * the service (service/service.c) acts and reports. */
#ifndef RECV_SETTINGS_RELOAD_H
#define RECV_SETTINGS_RELOAD_H

#include "settings/settings.h"

#include <stdbool.h>
#include <stddef.h>

/* The global settings of next that apply at once, into in_force. */
void settings_reload_globals(struct recv_settings *in_force,
			     const struct recv_settings *next);

/* Whether next (of the same name) is still the log served with served:
 * false when a setting that serves a log anew (its pool) changed. */
bool settings_reload_same_log(const struct recv_log_settings *served,
			      const struct recv_log_settings *next);

/* served, a log that stays, takes next but for the settings that need a
 * restart; returns how many of those differ in next, named in changed
 * ("create and direct-write-to-pmem", "" for none). */
unsigned settings_reload_log(struct recv_log_settings *served,
			     const struct recv_log_settings *next,
			     char *changed, size_t len);

#endif
