#include "connect/hint.h"

#include "error.h"

const char *send_hint_of(int rc, const struct rs_reject_info *refused)
{
	if (rc != RS_E_BUSY)
		return 0;
	if (refused->reason == RS_REJECT_STARTING)
		return "is opening its logs";
	if (!refused->retry_ms)
		return 0;
	if (refused->reason == RS_REJECT_BUSY)
		return "is busy taking other senders' connections";
	if (refused->reason == RS_REJECT_LIMIT)
		return "serves as many senders as it may for now";
	return 0;
}

bool send_hint_wait_next(struct send_hint_wait *w, int rc,
			 const struct rs_reject_info *refused, uint64_t now_ns)
{
	w->next_ms = 0;
	if (!send_hint_of(rc, refused))
		return false;
	if (!w->first_ns)
		w->first_ns = now_ns;
	uint64_t since_ms =
	    now_ns > w->first_ns ? (now_ns - w->first_ns) / 1000000u : 0;
	w->waited_ms = since_ms < UINT32_MAX ? (unsigned)since_ms : UINT32_MAX;
	if (w->waited_ms >= SEND_HINTED_WAIT_MS)
		return false;
	w->next_ms = refused->retry_ms ? refused->retry_ms : 100;
	return true;
}
