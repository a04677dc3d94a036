#include "connect.h"

#include "cli/exit_code.h"
#include "cli/log.h"
#include "error.h"
#include "session/session.h"

#include <errno.h>
#include <string.h>

_Static_assert(sizeof(((struct rs_target *)0)->name) ==
		   sizeof(((struct rs_connect_req *)0)->log_name),
	       "a target's log name fits the connect request as it is");

static int exit_code_of(int errc)
{
	switch (errc) {
	case RS_E_BUSY:
	case RS_E_REJECTED:
	case RS_E_AUTH:
	case RS_E_MALFORMED:
	case RS_E_VERSION:
		return RS_EXIT_REFUSED;
	default:
		return RS_EXIT_CONNECT;
	}
}

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
		 struct rs_session **rs, bool *transient)
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
	*transient = rc && RS_ERRC_TRANSIENT(rc);
	if (!rc)
		return RS_EXIT_OK;
	report(p, &err);
	return exit_code_of(rc);
}
