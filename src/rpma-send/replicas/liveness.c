#include "replicas/liveness.h"

void send_liveness_start(struct send_liveness *l, uint64_t now_ns)
{
	*l = (struct send_liveness){.heard_ns = now_ns};
}

void send_liveness_heard(struct send_liveness *l, uint64_t now_ns)
{
	if (now_ns > l->heard_ns)
		l->heard_ns = now_ns;
	l->probe_ns = 0;
}

void send_liveness_probed(struct send_liveness *l, uint64_t now_ns)
{
	l->probe_ns = now_ns;
}

enum send_liveness_verdict
send_liveness_check(const struct send_liveness *l, uint64_t waiting,
		    uint64_t now_ns, uint64_t timeout_ns, uint64_t *silent_ns)
{
	if (!waiting)
		return SEND_LIVE;
	/* Silent since what we wait for went, or since the last word. */
	uint64_t since = waiting > l->heard_ns ? waiting : l->heard_ns;
	*silent_ns = now_ns > since ? now_ns - since : 0;
	if (*silent_ns < timeout_ns / 2)
		return SEND_LIVE;
	if (!l->probe_ns)
		return SEND_PROBE;
	return now_ns - l->probe_ns >= timeout_ns / 2 ? SEND_GONE : SEND_LIVE;
}
