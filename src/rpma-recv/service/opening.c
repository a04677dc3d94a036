/* The logs a receiver serves are opened while it already takes requests:
 * a thousand pools take their time to open, and a restarted receiver
 * answers everyone meanwhile. A log opens in the loop's turns, a few at a
 * time, between the requests. A request for one not open yet opens it
 * there and then, up to a turn's worth of such opens, and is served at
 * once; past that it is refused as "starting", with a hint of when to ask
 * again, which a sender honours without a word (rpma-send:
 * connect/connect.c), and the log asked for opens next. */
#include "service/internal.h"

#include "cli/log.h"
#include "metrics/clock.h"

#include <stdlib.h>
#include <string.h>

void recv_service_pend(struct service *svc)
{
	struct pending_log **tail = &svc->pending;
	for (unsigned i = 0; i < svc->settings.nlogs; i++) {
		struct pending_log *p = calloc(1, sizeof(*p));
		if (!p)
			break;
		p->settings = &svc->settings.logs[i];
		*tail = p;
		tail = &p->next;
		svc->opening++;
	}
	svc->opening_since_ns = recv_now_ns();
}

/* The link to the log of that name still to open (*at NULL: none). */
static struct pending_log **pending_at(struct service *svc, const char *name)
{
	struct pending_log **at = &svc->pending;
	while (*at && strcmp((*at)->settings->name, name))
		at = &(*at)->next;
	return at;
}

void recv_service_pend_first(struct service *svc, const char *name)
{
	struct pending_log **at = pending_at(svc, name);
	if (!*at || at == &svc->pending)
		return;
	struct pending_log *p = *at;
	*at = p->next;
	p->next = svc->pending;
	svc->pending = p;
}

uint16_t recv_service_pending_ms(const struct service *svc, const char *name)
{
	unsigned ahead = 0, opened = svc->settings.nlogs - svc->opening;
	for (const struct pending_log *p = svc->pending; p; p = p->next) {
		ahead++;
		if (name[0] && strcmp(p->settings->name, name))
			continue;
		/* As long as the logs before it took, at the pace so far. */
		uint64_t spent = recv_now_ns() - svc->opening_since_ns;
		uint64_t each = opened ? spent / opened : 10000000ull;
		uint64_t ms = ahead * each / 1000000ull;
		return (uint16_t)(ms < 50 ? 50 : ms > 2000 ? 2000 : ms);
	}
	return 0;
}

/* The last log opened: what the receiver serves, said once. */
static void all_open(struct service *svc)
{
	unsigned open = 0;
	for (const struct served_log *l = svc->logs; l; l = l->next)
		open += !l->retired;
	double s = (double)(recv_now_ns() - svc->opening_since_ns) / 1e9;
	if (svc->settings.nlogs > 1 || svc->failed)
		rs_info("all logs opened in %.1f s: serving %u of %u%s", s,
			open, svc->settings.nlogs,
			svc->failed ? " (the others could not be opened, "
				      "said above)"
				    : "");
	recv_descriptors_check_room(svc->settings.max_senders);
}

/* Opens the pending log *at points to, taken off the queue: 0, or the
 * failure's rs_errc (said, and counted). The last one says what is served. */
static int open_one(struct service *svc, struct pending_log **at)
{
	struct pending_log *p = *at;
	*at = p->next;
	svc->opening--;
	int rc = recv_service_log_start(svc, p->settings);
	if (rc) {
		svc->failed++;
		svc->failed_rc = rc;
	}
	free(p);
	if (!svc->pending && !svc->opened) {
		svc->opened = true;
		all_open(svc);
	}
	return rc;
}

int recv_service_open_pending(struct service *svc, uint64_t budget_ns)
{
	uint64_t until = recv_now_ns() + budget_ns;
	while (svc->pending) {
		open_one(svc, &svc->pending);
		if (recv_now_ns() >= until)
			break;
	}
	/* Nothing opened and nothing left to: nothing to serve. */
	return svc->logs || svc->pending ? 0 : svc->failed_rc;
}

enum recv_asked_open recv_service_open_asked(struct service *svc,
					     const char *name)
{
	struct pending_log **at = pending_at(svc, name);
	if (!*at || recv_now_ns() >= svc->asked_opens_until_ns)
		return RECV_ASKED_LATER;
	return open_one(svc, at) ? RECV_ASKED_FAILED : RECV_ASKED_OPEN;
}

bool recv_service_failed_to_open(struct service *svc, const char *name)
{
	if (!recv_settings_find_log(&svc->settings, name) ||
	    *pending_at(svc, name))
		return false;
	for (const struct served_log *l = svc->logs; l; l = l->next)
		if (!strcmp(l->settings.name, name))
			return false;
	return true;
}
