/* The sender's end of connecting: a session request built from the
 * options, and what a failure means to the user: one line with the hint
 * that names the option or the program that fixes it, and the code. */
#ifndef SEND_CONNECT_H
#define SEND_CONNECT_H

#include "cli/endpoint.h"
#include "connect/hint.h"
#include "proto/auth.h"
#include "proto/descriptor.h"
#include "session/session.h"

#include <stdbool.h>
#include <stdint.h>

struct rs_session;

struct send_peer {
	const struct rs_target *remote; /* its log name goes in the request */
	int timeout_ms;
	const struct rs_auth_key *key; /* --auth-key, or NULL */
	/* Reconnecting: the token of our session, to take it over. */
	const struct rs_session_token *takeover;
	bool busy_poll;
	/* NULL: a refusal that says when to ask again is waited out here;
	 * else the caller asks again at later->next_ms (connect/hint.h). */
	struct send_hint_wait *later;
};

/* Connects, asking for the log p->remote names (every connection of a run,
 * reconnects and --verify included, asks for the same one); on failure
 * reports it and returns the session's code (RS_ERRC_TRANSIENT when trying
 * again later may work: nothing listening, the receiver busy or serving as
 * many senders as it may), but RS_E_PROVIDER for RS_E_NOMEM. With
 * p->later, a refusal to be asked again (later->next_ms set) is returned
 * unreported. */
int send_connect(const struct send_peer *p, struct rs_connect_req req,
		 uint16_t slots, uint32_t sends_per_slot,
		 struct rs_session **rs);

/* The times of the steps of the first session this process connected
 * (all 0 before one did). */
const struct rs_session_times *send_connect_first_times(void);

#endif
