/* A windowed writer's keys and its one keepalive, as a replica hears and
 * names them: the newest key its receiver handed out, the last one a
 * commit or keepalive named, whether a lone commit is out (its reply
 * revokes every older key) and whether a keepalive is unanswered. Every
 * message from the receiver goes through replica_keys_heard, whichever
 * path took it (a stream's completions or a request's wait), so no
 * answer is missed. Pure: no connection (replicas/replica.c feeds it). */
#ifndef SEND_REPLICA_KEYS_H
#define SEND_REPLICA_KEYS_H

#include "session/window_keys.h"

#include <stdbool.h>
#include <stdint.h>

struct rs_msg;

struct replica_keys {
	/* the newest heard and the one before, as the receiver holds them
	 * (lib/session's window_keys.h: the rule both ends follow) */
	struct rs_window_keys ids;
	uint64_t newest_end;   /* where its window ends, absolute */
	uint64_t heard_ns;     /* when the newest was heard */
	uint32_t named;	       /* the last one a commit or keepalive named */
	bool lone_out;	       /* a lone commit: nothing else until its reply */
	uint64_t keepalive_ns; /* one unanswered, or 0 */
	bool keepalive_asks;   /* it is a message, not a probe of the link */
};

/* A fresh session: no key, nothing out. */
void replica_keys_start(struct replica_keys *k);

/* A message from the receiver: a reply's key is the one to write with
 * (replies come in order, the last key is the newest); the reply to a
 * lone commit or to a keepalive ends what was out. */
void replica_keys_heard(struct replica_keys *k, const struct rs_msg *msg,
			uint64_t now_ns);

/* A batch posted with the newest key (its commit names it); lone: written
 * with nothing else in flight, its reply brings the only key that holds. */
void replica_keys_posted(struct replica_keys *k, bool lone);

/* When a keepalive is due: a quarter of the peer timeout after the last
 * word sent, or soon after a key no commit named yet (so a paused
 * stream's windows move past what it committed); 0 while one is out. */
uint64_t replica_keys_keepalive_at(const struct replica_keys *k,
				   uint64_t last_sent_ns,
				   uint64_t peer_timeout_ns);

/* A keepalive goes now: the key it names, or 0 for a probe of the link.
 * Behind a lone commit it names none: the receiver revokes the key it
 * would name when the lone commit lands, and a key it does not hold ends
 * the session. */
uint32_t replica_keys_keepalive_sent(struct replica_keys *k, uint64_t now_ns);

/* While a rebase is out (a seal on a slow archive disk may take long),
 * when to ask the receiver's program: a keepalive message naming no key,
 * which its log's thread answers, so that a healthy receiver is heard and
 * a hung one found (replicas/liveness.h): half a peer timeout after the
 * rebase was asked for or the last word sent, whichever is later; 0 while
 * one is out. */
uint64_t replica_keys_rebase_keepalive_at(const struct replica_keys *k,
					  uint64_t rebase_ns,
					  uint64_t last_sent_ns,
					  uint64_t peer_timeout_ns);
/* That keepalive goes now. */
void replica_keys_asked(struct replica_keys *k, uint64_t now_ns);

/* A keepalive's probe of the link completed: the next may go. A
 * keepalive message stays out until its program answers it: each takes
 * one of the receives its receiver posted, and a stopped receiver gives
 * none back, so a second would wait for one (receiver-not-ready) and hold
 * back every probe of the link behind it. */
void replica_keys_probe_answered(struct replica_keys *k);

#endif
