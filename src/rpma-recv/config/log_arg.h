/* A log given on the command line: --log NAME=POOL[,KEY=VALUE...], where
 * each KEY is a key of a log's section in rpma-recv.conf(5) (archive,
 * rotate-at, allow, ...), read with the same checks as the file's (a path
 * may be relative here). */
#ifndef RECV_SETTINGS_LOG_ARG_H
#define RECV_SETTINGS_LOG_ARG_H

#include "error.h"
#include "settings/settings.h"

/* Reads arg into log, over what log holds (the flags that apply to every
 * log of the command line); RS_E_INVAL with "--log ARG: what, and the
 * fix". A pool path with a comma cannot be given this way: the first
 * comma ends POOL. */
int settings_log_arg_parse(const char *arg, struct recv_log_settings *log,
			   struct rs_error *err);

#endif
