#include "config/log_arg.h"

#include "settings/table.h"
#include "settings/value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The keys --log takes after POOL: a log's, but its pool. */
static const struct cli_option *log_key(const char *key)
{
	const struct cli_option *row = cli_option_find(&settings_table, key);
	if (!row || row->scope != SETTINGS_LOG || !strcmp(row->name, "pool"))
		return 0;
	return row;
}

/* One KEY=VALUE of arg into log. */
static int apply_pair(const char *arg, char *pair,
		      struct recv_log_settings *log, struct rs_error *err)
{
	char *eq = strchr(pair, '=');
	if (eq)
		*eq = '\0';
	const struct cli_option *row = log_key(pair);
	if (!row)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--log %s: '%s' is not a key of a log; "
				    "give NAME=POOL[,KEY=VALUE...] with keys "
				    "of rpma-recv.conf(5) such as "
				    "archive=DIR",
				    arg, pair);
	if (!eq || !eq[1])
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--log %s: %s has no value; give %s=VALUE",
				    arg, pair, pair);
	struct settings_input in = {row, SETTINGS_FROM_LOG_ARG, log->name};
	int rc = settings_value_parse(&in, eq + 1, log, err);
	return rc ? rs_error_wrap(err, "--log %s", arg) : 0;
}

/* NAME=POOL, the part before the first comma. */
static int name_and_pool(const char *arg, char *head,
			 struct recv_log_settings *log, struct rs_error *err)
{
	char *eq = strchr(head, '=');
	*eq = '\0';
	if (strlen(head) > RS_LOG_NAME_MAX)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--log %s: the name is longer than %d "
				    "characters; choose a shorter one",
				    arg, RS_LOG_NAME_MAX);
	if (strlen(eq + 1) >= sizeof(log->pool_path))
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--log %s: the pool path is too long", arg);
	snprintf(log->name, sizeof(log->name), "%s", head);
	snprintf(log->pool_path, sizeof(log->pool_path), "%s", eq + 1);
	return 0;
}

int settings_log_arg_parse(const char *arg, struct recv_log_settings *log,
			   struct rs_error *err)
{
	char *copy = strdup(arg), *save = 0;
	if (!copy)
		return rs_error_set(err, RS_E_NOMEM, 0, "out of memory");
	char *part = strtok_r(copy, ",", &save);
	int rc = part && strchr(part, '=')
		     ? name_and_pool(arg, part, log, err)
		     : rs_error_set(err, RS_E_INVAL, 0,
				    "--log '%s': give NAME=POOL, e.g. "
				    "app=/mnt/pmem/app.pool",
				    arg);
	while (!rc && (part = strtok_r(0, ",", &save)))
		rc = apply_pair(arg, part, log, err);
	free(copy);
	return rc;
}
