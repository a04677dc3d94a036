#include "service/status_line.h"

#include "cli/size.h"
#include "service/sd_notify.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for the names: three of the longest log names with their fill and
 * archive fit, a long pool path (the unnamed log, which serves alone) may
 * not. */
#define NAMES_ROOM 240

static const char *plural(unsigned n)
{
	return n == 1 ? "" : "s";
}

/* "app", or with its usage "app 41%" or "app 41% +2.1 GiB archived". */
static void log_text(const struct recv_status *st, unsigned i, char *out,
		     size_t size)
{
	if (!st->usage) {
		snprintf(out, size, "%s", st->names[i]);
		return;
	}
	const struct recv_status_log *u = &st->usage[i];
	char archived[32] = "";
	if (u->archived)
		rs_size_format(u->archived, archived, sizeof(archived));
	snprintf(out, size, "%s %u%%%s%s%s", st->names[i], u->fill,
		 u->archived ? " +" : "", archived,
		 u->archived ? " archived" : "");
}

/* "app, audit, web and 4 more", or "" when no name fits. */
static void names_text(const struct recv_status *st, char *out, size_t size)
{
	size_t used = 0;
	unsigned shown = 0;
	out[0] = '\0';
	for (; shown < st->nnames && shown < RECV_STATUS_NAMES_SHOWN; shown++) {
		char one[PATH_MAX + 64];
		log_text(st, shown, one, sizeof(one));
		if (used + strlen(one) + 2 > NAMES_ROOM)
			break;
		used += (size_t)snprintf(out + used, size - used, "%s%s",
					 shown ? ", " : "", one);
	}
	if (shown && shown < st->nlogs)
		snprintf(out + used, size - used, " and %u more",
			 st->nlogs - shown);
}

void recv_status_text(const struct recv_status *st, char *text, size_t size)
{
	char names[NAMES_ROOM + 32], committed[32];
	names_text(st, names, sizeof(names));
	bool named = names[0] != '\0';
	char opening[48] = "";
	if (st->opening)
		snprintf(opening, sizeof(opening), " (%u more opening)",
			 st->opening);
	snprintf(
	    text, size,
	    "serving %u log%s%s%s%s%s, %u sender%s connected, %s committed",
	    st->nlogs, plural(st->nlogs), opening, named ? " (" : "", names,
	    named ? ")" : "", st->senders, plural(st->senders),
	    rs_size_format(st->committed, committed, sizeof(committed)));
}

void recv_status_line_init(struct recv_status_line *line)
{
	line->enabled = getenv("NOTIFY_SOCKET") != NULL;
	line->sent[0] = '\0';
}

bool recv_status_line_send(struct recv_status_line *line, const char *head,
			   const char *text)
{
	if (!line->enabled || (!head && !strcmp(text, line->sent)))
		return false;
	snprintf(line->sent, sizeof(line->sent), "%s", text);
	return recv_sd_notifyf("%sSTATUS=%s", head ? head : "", text) == 0;
}
