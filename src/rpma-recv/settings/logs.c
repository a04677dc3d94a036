/* The logs of a recv_settings: growing and copying the array, and a log
 * from the command line joining it once checked (settings/check.h). */
#include "settings/logs.h"

#include "settings/check.h"

#include <stdlib.h>
#include <string.h>

int settings_logs_append(struct recv_settings *s,
			 const struct recv_log_settings *log,
			 struct rs_error *err)
{
	struct recv_log_settings *logs = malloc((s->nlogs + 1) * sizeof(*logs));
	if (!logs)
		return rs_error_set(err, RS_E_NOMEM, 0,
				    "out of memory for log '%s'", log->name);
	if (s->nlogs)
		memcpy(logs, s->logs, s->nlogs * sizeof(*logs));
	logs[s->nlogs] = *log;
	unsigned n = s->nlogs + 1;
	recv_settings_free(s);
	s->logs = logs;
	s->nlogs = n;
	return 0;
}

int settings_copy(struct recv_settings *dst, const struct recv_settings *src,
		  struct rs_error *err)
{
	*dst = *src;
	dst->logs = 0;
	if (!src->nlogs)
		return 0;
	dst->logs = malloc(src->nlogs * sizeof(*dst->logs));
	if (!dst->logs) {
		dst->nlogs = 0;
		return rs_error_set(err, RS_E_NOMEM, 0,
				    "out of memory for the settings");
	}
	memcpy(dst->logs, src->logs, src->nlogs * sizeof(*dst->logs));
	return 0;
}

int recv_settings_add_log(struct recv_settings *s,
			  const struct recv_log_settings *log,
			  struct rs_error *err)
{
	if (!log->pool_path[0])
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--log %s=: the pool path is empty: write "
				    "--log NAME=POOL",
				    log->name);
	int rc = settings_check_name(s, log, 0, err);
	if (!rc)
		rc = settings_check_methods(s, log, 0, err);
	if (!rc)
		rc = settings_check_room(s, log, 0, err);
	if (!rc)
		rc = settings_check_pool_free(s, log, 0, err);
	if (!rc)
		rc = settings_logs_append(s, log, err);
	return rc;
}
