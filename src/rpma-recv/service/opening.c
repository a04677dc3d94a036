/* The logs a receiver serves are opened while it already takes requests:
 * a thousand pools take their time to open, and a restarted receiver
 * answers everyone meanwhile. They open one at a time on the opener's
 * thread (service/opener.h), in the order kept here: the logs senders
 * asked for first, in the order asked, then the others. A request for one
 * not open yet is held until it opens (service/held.h) or refused as
 * "starting", with a hint of when to ask again, which a sender honours
 * without a word (rpma-send: connect/connect.c). */
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
	svc->opened_since = 0;
}

static void pending_free(struct pending_log *p)
{
	/* its copy holds the log's auth key: none stays in freed heap (as
	 * recv_settings_free; a memset before free may be left out) */
	if (p->added)
		explicit_bzero(p->added, sizeof(*p->added));
	free(p->added);
	free(p);
}

int recv_service_pend_added(struct service *svc,
			    const struct recv_log_settings *s)
{
	struct pending_log *p = calloc(1, sizeof(*p));
	if (p)
		p->added = malloc(sizeof(*p->added));
	if (!p || !p->added) {
		free(p);
		rs_err("log %s: out of memory to add it", s->name);
		return RS_E_NOMEM;
	}
	*p->added = *s;
	p->settings = p->added;
	struct pending_log **tail = &svc->pending;
	while (*tail)
		tail = &(*tail)->next;
	*tail = p;
	if (!svc->opening) { /* the pace of this reload's opens */
		svc->opening_since_ns = recv_now_ns();
		svc->opened_since = 0;
	}
	svc->opening++;
	return 0;
}

void recv_service_pending_free(struct service *svc)
{
	struct pending_log **lists[] = {&svc->pending, &svc->handed};
	for (unsigned i = 0; i < 2; i++) {
		while (*lists[i]) {
			struct pending_log *p = *lists[i];
			*lists[i] = p->next;
			pending_free(p);
		}
	}
}

/* The link to the log of that name still to open (*at NULL: none). */
static struct pending_log **pending_at(struct service *svc, const char *name)
{
	struct pending_log **at = &svc->pending;
	while (*at && strcmp((*at)->settings->name, name))
		at = &(*at)->next;
	return at;
}

/* The logs asked for open first, in the order they were asked: a fleet
 * that reconnects at once after a restart asks for a thousand, and each
 * sender's hint is only right if no later request jumps ahead of it (the
 * last asked first sent the early askers back again and again). */
void recv_service_pend_first(struct service *svc, const char *name)
{
	struct pending_log **at = pending_at(svc, name);
	if (!*at || (*at)->asked)
		return;
	struct pending_log *p = *at;
	*at = p->next;
	struct pending_log **after = &svc->pending;
	while (*after && (*after)->asked)
		after = &(*after)->next;
	p->asked = true;
	p->next = *after;
	*after = p;
}

/* The log the opener has had longest in hand, if any. */
static const struct recv_log_settings *opening_now(const struct service *svc)
{
	return svc->opener ? recv_opener_busy_with(svc->opener) : NULL;
}

/* Whether the log of that name ("": any) is being opened now. */
static bool opens_now(const struct service *svc, const char *name)
{
	return svc->opener && recv_opener_opening(svc->opener, name);
}

#define RECV_PENDING_MIN_MS 50

/* The time to ask again for a log with `ahead` opens before it done:
 * as long as the logs before took, at the pace so far, after the one
 * opening now, as long again as it took so far (a pool being made takes
 * seconds: a sender asking every 50 ms meanwhile only adds load). Up to
 * 10 s: a fleet of a thousand asks at once after a restart, and each
 * refusal costs the receiver CPU its opens need (capped at 2 s, each of
 * scripts/fleet's 1000 asked again every 2 s while the opens took 25 s). */
static uint16_t pending_guess_ms(const struct service *svc, unsigned ahead,
				 bool one_opening)
{
	unsigned opened = svc->opened_since;
	uint64_t now = recv_now_ns();
	uint64_t spent = now - svc->opening_since_ns;
	uint64_t each = opened ? spent / opened : 10000000ull;
	uint64_t ms = ahead * each / 1000000ull;
	if (one_opening)
		ms += (now - svc->open_began_ns) / 1000000ull;
	if (ms < RECV_PENDING_MIN_MS)
		ms = RECV_PENDING_MIN_MS;
	return (uint16_t)(ms > 10000 ? 10000 : ms);
}

uint16_t recv_service_pending_ms(const struct service *svc, const char *name)
{
	const struct recv_log_settings *now = opening_now(svc);
	/* Its open is under way: asked again at once, the next request is
	 * held while it opens (up to RECV_ANSWER_MS) and answered the moment
	 * it is open. A guess of the time left (as long again as it took so
	 * far) kept a sender away for most of a second after a 200 MiB pool
	 * was open (issue 71); at most the senders of the logs opening now
	 * ask so. */
	if (opens_now(svc, name))
		return RECV_PENDING_MIN_MS;
	/* the next one in the opener's hands, or one opened and not served
	 * yet (this turn serves it) */
	if (svc->opener && recv_opener_holds(svc->opener, name))
		return pending_guess_ms(svc, 1, now != NULL);
	unsigned ahead = svc->opener ? recv_opener_in_hand(svc->opener) : 0;
	for (const struct pending_log *p = svc->pending; p; p = p->next) {
		ahead++;
		if (!name[0] || !strcmp(p->settings->name, name))
			return pending_guess_ms(svc, ahead, now != NULL);
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

/* The log handed to the opener with those settings, taken off the
 * handed list (NULL: none, which cannot be). */
static struct pending_log *take_handed(struct service *svc,
				       const struct recv_log_settings *s)
{
	for (struct pending_log **at = &svc->handed; *at; at = &(*at)->next) {
		if ((*at)->settings == s) {
			struct pending_log *p = *at;
			*at = p->next;
			return p;
		}
	}
	return NULL;
}

/* The opener is done with a log: served, or its failure said and counted.
 * The last one says what is served. */
static void opened(struct service *svc, struct recv_opened *r)
{
	struct pending_log *p = take_handed(svc, r->settings);
	svc->opening--;
	svc->opened_since++;
	int rc = recv_service_log_opened(svc, r->settings, r->worker, r->rc,
					 &r->err);
	if (rc) {
		svc->failed++;
		svc->failed_rc = rc;
	} else if (p && p->added) {
		rs_info("log %s added", p->added->name);
	}
	if (p)
		pending_free(p);
	if (!svc->opening && !svc->opened) {
		svc->opened = true;
		all_open(svc);
	}
}

int recv_service_open_turn(struct service *svc)
{
	struct recv_opened r;
	while (svc->opening && recv_opener_take(svc->opener, &r)) {
		opened(svc, &r);
		svc->open_began_ns = recv_now_ns(); /* the next one's */
	}
	while (svc->pending && recv_opener_in_hand(svc->opener) <
				   recv_opener_depth(svc->opener)) {
		struct pending_log *p = svc->pending;
		svc->pending = p->next;
		if (!recv_opener_in_hand(svc->opener))
			svc->open_began_ns = recv_now_ns();
		recv_opener_open(svc->opener, p->settings);
		p->next = svc->handed;
		svc->handed = p;
	}
	/* Nothing opened and nothing left to: nothing to serve. */
	return svc->logs || svc->opening ? 0 : svc->failed_rc;
}

bool recv_service_still_to_open(const struct service *svc, const char *name)
{
	if (svc->opener && recv_opener_holds(svc->opener, name))
		return true;
	for (const struct pending_log *p = svc->pending; p; p = p->next)
		if (!name[0] || !strcmp(p->settings->name, name))
			return true;
	return false;
}

bool recv_service_failed_to_open(struct service *svc, const char *name)
{
	if (!recv_settings_find_log(&svc->settings, name) ||
	    recv_service_still_to_open(svc, name))
		return false;
	for (const struct served_log *l = svc->logs; l; l = l->next)
		if (!strcmp(l->settings.name, name))
			return false;
	return true;
}
