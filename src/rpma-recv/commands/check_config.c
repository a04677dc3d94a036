#include "commands/check_config.h"

#include "cli/log.h"
#include "commands/listen_check.h"
#include "commands/pool_access.h"
#include "error.h"
#include "metrics/metrics.h"
#include "pool/open.h"
#include "settings/check.h"

#include <limits.h>
#include <stdio.h>

/* What the service looks at before it listens (what the path is, a pool
 * header), read-only; named where the log was given. */
static int look_at_pool(const struct recv_settings *s,
			const struct recv_log_settings *log,
			struct rs_error *err)
{
	int rc = recv_pool_precheck(log->pool_path, log->create_size, err);
	if (!rc)
		return 0;
	char where[PATH_MAX + 64];
	if (log->pool_line)
		snprintf(where, sizeof(where), "%s:%u: log %s", s->path,
			 log->pool_line, log->name);
	else
		settings_place(s, log, 0, where, sizeof(where));
	return rs_error_wrap(err, "%s", where);
}

static int check_logs(const struct recv_settings *s, struct rs_error *err)
{
	for (unsigned i = 0; i < s->nlogs; i++) {
		const struct recv_log_settings *log = &s->logs[i];
		/* The file's logs were, with the line of their `pool`, as the
		 * file was read; the command line's are only when opened. */
		int rc = 0;
		if (!log->line)
			rc = settings_check_pool_exists(s, log, 0, err);
		if (!rc)
			rc = recv_pool_access_check(s, log, err);
		if (!rc)
			rc = look_at_pool(s, log, err);
		if (rc)
			return rc;
	}
	return 0;
}

static void print_ok(const struct recv_settings *s)
{
	if (rs_log_get_level() < RS_LOG_NORMAL)
		return;
	printf("rpma-recv: %s: configuration OK, %u log%s",
	       s->path[0] ? s->path : "the command line", s->nlogs,
	       s->nlogs == 1 ? "" : "s");
	for (unsigned i = 0; i < s->nlogs; i++) {
		const struct recv_log_settings *log = &s->logs[i];
		printf("%s%s", i ? ", " : ": ",
		       log->name[0] ? log->name : log->pool_path);
	}
	putchar('\n');
	fflush(stdout);
}

int recv_check_config(const struct recv_settings_source *source)
{
	struct recv_settings s;
	recv_settings_init(&s);
	struct rs_error err = {0};
	int rc = source->build(source->ctx, &s, &err);
	if (!rc)
		rc = check_logs(&s, &err);
	if (!rc)
		rc = recv_listen_check(&s.listen,
				       s.path[0] ? s.path : "--listen", &err);
	if (!rc && s.metrics_file[0])
		rc = recv_metrics_path_check(s.metrics_file, true, &err);
	if (rc)
		rs_err("%s", err.msg);
	else
		print_ok(&s);
	recv_settings_free(&s);
	return rc;
}
