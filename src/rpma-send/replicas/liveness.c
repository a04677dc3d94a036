#include "replicas/liveness.h"

void send_liveness_start(struct send_liveness *l, uint64_t now_ns)
{
	*l = (struct send_liveness){.heard_ns = now_ns, .answered_ns = now_ns};
}

void send_liveness_heard(struct send_liveness *l, uint64_t now_ns)
{
	if (now_ns > l->heard_ns)
		l->heard_ns = now_ns;
	l->probe_ns = 0;
}

void send_liveness_answered(struct send_liveness *l, uint64_t now_ns)
{
	send_liveness_heard(l, now_ns);
	l->answered_ns = now_ns;
	l->nbacks = 0;
}

void send_liveness_probed(struct send_liveness *l, uint64_t now_ns)
{
	l->probe_ns = now_ns;
}

void send_liveness_probe_back(struct send_liveness *l, uint64_t now_ns)
{
	if (l->probe_ns) {
		if (l->nbacks == SEND_LIVENESS_BACKS) {
			for (unsigned i = 1; i < l->nbacks; i++)
				l->backs[i - 1] = l->backs[i];
			l->nbacks--;
		}
		l->backs[l->nbacks++] =
		    (struct send_liveness_probe){now_ns, l->probe_ns};
	}
	send_liveness_heard(l, now_ns);
}

/* The first probe to come back that was sent after `waiting` (it proves
 * what we wait for had reached the adapter), or NULL. */
static const struct send_liveness_probe *
first_after(const struct send_liveness *l, uint64_t waiting)
{
	for (unsigned i = 0; i < l->nbacks; i++)
		if (l->backs[i].sent_ns >= waiting)
			return &l->backs[i];
	return 0;
}

/* Whether the program has had what we wait for (sent at `waiting`) for
 * twice the timeout and said nothing. */
static bool program_silent(const struct send_liveness *l, uint64_t waiting,
			   uint64_t now_ns, uint64_t timeout_ns,
			   uint64_t *silent_ns)
{
	const struct send_liveness_probe *p = first_after(l, waiting);
	if (!p)
		return false;
	uint64_t quiet = now_ns > p->back_ns ? now_ns - p->back_ns : 0;
	if (quiet < 2 * timeout_ns)
		return false;
	*silent_ns =
	    now_ns - (waiting > l->answered_ns ? waiting : l->answered_ns);
	return true;
}

enum send_liveness_verdict
send_liveness_check(const struct send_liveness *l, uint64_t waiting,
		    uint64_t now_ns, uint64_t timeout_ns, uint64_t *silent_ns)
{
	if (!waiting)
		return SEND_LIVE;
	if (program_silent(l, waiting, now_ns, timeout_ns, silent_ns))
		return SEND_HUNG;
	/* Silent since what we wait for went, or since the last word. */
	uint64_t since = waiting > l->heard_ns ? waiting : l->heard_ns;
	*silent_ns = now_ns > since ? now_ns - since : 0;
	if (*silent_ns < timeout_ns / 2)
		return SEND_LIVE;
	if (!l->probe_ns)
		return SEND_PROBE;
	return now_ns - l->probe_ns >= timeout_ns / 2 ? SEND_GONE : SEND_LIVE;
}
