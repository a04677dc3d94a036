/* The settings as a whole: their defaults (from the table), freeing them,
 * finding a log. */
#include "settings/settings.h"

#include "settings/value.h"

#include <stdlib.h>
#include <string.h>

void recv_settings_init(struct recv_settings *s)
{
	memset(s, 0, sizeof(*s));
	settings_value_defaults(SETTINGS_GLOBAL, s);
}

void recv_log_settings_init(struct recv_log_settings *log)
{
	memset(log, 0, sizeof(*log));
	settings_value_defaults(SETTINGS_LOG, log);
}

void recv_settings_free(struct recv_settings *s)
{
	/* The logs hold auth keys: no copy of a secret stays in freed heap. */
	if (s->logs)
		explicit_bzero(s->logs, s->nlogs * sizeof(*s->logs));
	free(s->logs);
	s->logs = 0;
	s->nlogs = 0;
	s->logs_room = 0;
}

const struct recv_log_settings *
recv_settings_find_log(const struct recv_settings *s, const char *name)
{
	for (unsigned i = 0; i < s->nlogs; i++)
		if (!strcmp(s->logs[i].name, name))
			return &s->logs[i];
	return 0;
}
