/* The two-key rule of a writer through memory windows, one rule for both
 * ends: the receiver hands out a key with each binding of a window, in
 * its replies; a key holds while it is the newest handed out or the one
 * before (batches the writer sent before it heard of the newest still
 * name that one). A binding in reply to what the writer sends with
 * nothing else in flight (a commit sent alone, RS_MSG_LONE; a window
 * request; a rebase, replacement or switch) revokes every older key: only
 * the new one holds. The receiver checks each commit's key by it
 * (rpma-recv's reach/window_keys.h); the sender follows it as it hears
 * the replies (rpma-send's replicas/replica_keys.h). Pure. */
#ifndef RS_SESSION_WINDOW_KEYS_H
#define RS_SESSION_WINDOW_KEYS_H

#include <stdbool.h>
#include <stdint.h>

struct rs_window_keys {
	uint32_t newest, before; /* 0: none */
};

/* A window was bound with key: it is the newest; the one before is the
 * newest until now, or none (revoke_older: in reply to what was sent with
 * nothing else in flight). */
void rs_window_keys_bind(struct rs_window_keys *k, uint32_t key,
			 bool revoke_older);

/* Whether key (never 0) holds: the newest or the one before. */
bool rs_window_keys_hold(const struct rs_window_keys *k, uint32_t key);

#endif
