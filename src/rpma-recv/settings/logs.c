/* The logs of a recv_settings: growing and copying the array, and a log
 * from the command line joining it once checked (settings/check.h). */
#include "settings/logs.h"

#include "settings/check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Room for one more log: the array doubles when full, so that thousands
 * of logs are read in linear time (a log's settings are 13 KiB). The old
 * one is wiped: it holds keys. */
static int make_room(struct recv_settings *s)
{
	if (s->nlogs < s->logs_room)
		return 0;
	unsigned room = s->logs_room ? 2 * s->logs_room : 4;
	struct recv_log_settings *logs = malloc(room * sizeof(*logs));
	if (!logs)
		return -1;
	unsigned n = s->nlogs;
	if (n)
		memcpy(logs, s->logs, n * sizeof(*logs));
	recv_settings_free(s);
	s->logs = logs;
	s->nlogs = n;
	s->logs_room = room;
	return 0;
}

int settings_logs_append(struct recv_settings *s,
			 const struct recv_log_settings *log,
			 struct rs_error *err)
{
	if (make_room(s))
		return rs_error_set(err, RS_E_NOMEM, 0,
				    "out of memory for log '%s'", log->name);
	struct recv_log_settings *added = &s->logs[s->nlogs++];
	*added = *log;
	struct stat st;
	bool exists = stat(added->pool_path, &st) == 0;
	added->pool_dev = exists ? st.st_dev : 0;
	added->pool_ino = exists ? st.st_ino : 0;
	return 0;
}

int settings_copy(struct recv_settings *dst, const struct recv_settings *src,
		  struct rs_error *err)
{
	*dst = *src;
	dst->logs = 0;
	dst->logs_room = src->nlogs;
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
