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
