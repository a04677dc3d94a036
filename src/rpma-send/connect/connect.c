#include "connect/connect.h"

#include "cli/log.h"
#include "error.h"
#include "input/input.h"
#include "session/session.h"

#include <errno.h>
#include <string.h>

_Static_assert(sizeof(((struct rs_target *)0)->name) ==
		   sizeof(((struct rs_connect_req *)0)->log_name),
	       "a target's log name fits the connect request as it is");

static void report(const struct send_peer *p, const struct rs_error *err)
{
	if (err->code == RS_E_AUTH && !p->key)
		rs_err("%s; give the shared key with --auth-key FILE",
		       err->msg);
	else if (err->code == RS_E_AUTH && err->sys_errno == EACCES)
		rs_err("%s (check that both sides use the same --auth-key)",
		       err->msg);
	else if (err->code == RS_E_UNREACHABLE &&
		 err->sys_errno == ECONNREFUSED)
		rs_err("%s; is rpma-recv running on that address and port?",
		       err->msg);
	else
		rs_err("%s", err->msg);
}

int send_connect(const struct send_peer *p, struct rs_connect_req req,
		 uint16_t slots, uint32_t sends_per_slot,
		 struct rs_session **rs)
{
	memcpy(req.log_name, p->remote->name, sizeof(req.log_name));
	struct rs_session_request r = {
	    .host = p->remote->endpoint.host,
	    .port = p->remote->endpoint.port,
	    .timeout_ms = p->timeout_ms,
	    .req = req,
	    .slots = slots,
	    .sends_per_slot = sends_per_slot,
	    .key = p->key,
	    .takeover = p->takeover,
	    .busy_poll = p->busy_poll,
	};
	struct rs_error err = {0};
	int rc = rs_session_connect(&r, rs, &err);
	if (!rc)
		return 0;
	if (send_stop_requested)
		return RS_E_INTERRUPTED;
	report(p, &err);
	/* The memory a connection takes (its queue pair, its registered
	 * message slots) is the RDMA stack's: running out of it is failing to
	 * connect (exit 3), not the sender's own buffers (RS_E_NOMEM, 2). */
	return rc == RS_E_NOMEM ? RS_E_PROVIDER : rc;
}
