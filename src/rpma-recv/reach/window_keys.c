#include "reach/window_keys.h"

bool recv_window_keys_holds(const struct recv_window_keys *k, uint32_t key)
{
	return rs_window_keys_hold(&k->ids, key);
}

/* A window bound at bound_head at bound_ns covered the committed bytes
 * [bound_head, head) until now. */
static void note_reach(struct recv_window_keys *k, uint64_t bound_head,
		       uint64_t bound_ns, uint64_t head, uint64_t now)
{
	if (head <= bound_head || now < bound_ns)
		return; /* it covered nothing committed */
	if (head - bound_head > k->reach_bytes_max)
		k->reach_bytes_max = head - bound_head;
	if (now - bound_ns > k->reach_ns_max)
		k->reach_ns_max = now - bound_ns;
}

void recv_window_keys_bound(struct recv_window_keys *k, uint32_t key,
			    bool reset, uint64_t reach, uint64_t head,
			    uint64_t now)
{
	/* The window that moved is the one the key before named; a reset
	 * takes the newest key's away too. */
	if (k->ids.before)
		note_reach(k, k->before_head, k->before_ns, head, now);
	if (reset && k->ids.newest)
		note_reach(k, k->newest_head, k->newest_ns, head, now);
	rs_window_keys_bind(&k->ids, key, reset);
	k->before_head = k->newest_head;
	k->before_ns = k->newest_ns;
	k->before_at = k->newest_at;
	k->newest_head = reach;
	k->newest_ns = now;
	k->newest_at = head;
}

bool recv_window_keys_behind(const struct recv_window_keys *k, uint64_t head)
{
	return k->ids.before && k->before_at < head;
}

void recv_window_keys_end(struct recv_window_keys *k, uint64_t head,
			  uint64_t now)
{
	if (k->ids.before)
		note_reach(k, k->before_head, k->before_ns, head, now);
	if (k->ids.newest)
		note_reach(k, k->newest_head, k->newest_ns, head, now);
}
