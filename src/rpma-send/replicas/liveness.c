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

void send_liveness_answered_after(struct send_liveness *l, uint64_t now_ns,
				  uint64_t waiting)
{
	send_liveness_answered(l, now_ns);
	if (!waiting || waiting > now_ns)
		return;
	l->took[l->ntook++ % SEND_LIVENESS_TOOK] = now_ns - waiting;
}

/* The slowest of the program's latest answers. */
static uint64_t slowest(const struct send_liveness *l)
{
	uint64_t max = 0;
	unsigned n =
	    l->ntook < SEND_LIVENESS_TOOK ? l->ntook : SEND_LIVENESS_TOOK;
	for (unsigned i = 0; i < n; i++)
		if (l->took[i] > max)
			max = l->took[i];
	return max;
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

/* How long since from, less the time this sender could not run. */
static uint64_t since(const struct rs_stall *stall, uint64_t from_ns,
		      uint64_t now_ns)
{
	uint64_t ns = now_ns > from_ns ? now_ns - from_ns : 0;
	uint64_t off = stall ? rs_stall_since(stall, from_ns) : 0;
	return ns > off ? ns - off : 0;
}

/* Whether the program has had what we wait for (sent at `waiting`) for
 * twice the timeout and said nothing. */
static bool program_silent(const struct send_liveness *l, uint64_t waiting,
			   uint64_t now_ns, uint64_t timeout_ns,
			   const struct rs_stall *stall, uint64_t *silent_ns)
{
	const struct send_liveness_probe *p = first_after(l, waiting);
	if (!p)
		return false;
	uint64_t quiet = since(stall, p->back_ns, now_ns);
	/* Slow lately: more patience, but a hung program is still found
	 * within three timeouts of the request (half of one to the probe). */
	uint64_t most = timeout_ns + timeout_ns / 4;
	uint64_t patience = timeout_ns > slowest(l) ? timeout_ns : slowest(l);
	if (patience > most)
		patience = most;
	if (quiet < 2 * patience)
		return false;
	*silent_ns =
	    now_ns - (waiting > l->answered_ns ? waiting : l->answered_ns);
	return true;
}

enum send_liveness_verdict
send_liveness_check(const struct send_liveness *l, uint64_t waiting,
		    uint64_t now_ns, uint64_t timeout_ns,
		    const struct rs_stall *stall, uint64_t *silent_ns)
{
	if (!waiting)
		return SEND_LIVE;
	if (program_silent(l, waiting, now_ns, timeout_ns, stall, silent_ns))
		return SEND_HUNG;
	/* Silent since what we wait for went, or since the last word. */
	uint64_t from = waiting > l->heard_ns ? waiting : l->heard_ns;
	*silent_ns = since(stall, from, now_ns);
	if (*silent_ns < timeout_ns / 2)
		return SEND_LIVE;
	if (!l->probe_ns)
		return SEND_PROBE;
	return since(stall, l->probe_ns, now_ns) >= timeout_ns / 2 ? SEND_GONE
								   : SEND_LIVE;
}
