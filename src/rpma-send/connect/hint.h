/* Whether a receiver's refusal says to ask again after a while (the log
 * is opening, the receiver is busy taking other senders' connections, or
 * serves as many senders as it may for now): such a refusal comes with a
 * time to wait, and the sender asks again then, without a word and
 * without counting it against --retry. A log that another sender writes
 * says no time: that one is --retry's. Pure. */
#ifndef SEND_HINT_H
#define SEND_HINT_H

#include "proto/descriptor.h"

#include <stdbool.h>

/* Hinted refusals are asked again, without a word, for this long in all
 * (a large receiver's start may take it). */
#define SEND_HINTED_WAIT_MS (120 * 1000)

/* Why to ask again (a phrase: "is opening its logs"), or NULL. */
const char *send_hint_of(int rc, const struct rs_reject_info *refused);

/* The hinted waits of one connection's attempts: how long they came to,
 * and the next (0: none, the last refusal said no time). */
struct send_hint_wait {
	unsigned waited_ms;
	unsigned next_ms;
};

/* Whether to ask again after this refusal: sets w->next_ms to its hint
 * (100 ms when it gives none) and counts it as waited; false (next_ms 0)
 * when it says no time or the hinted waits came to SEND_HINTED_WAIT_MS. */
bool send_hint_wait_next(struct send_hint_wait *w, int rc,
			 const struct rs_reject_info *refused);

#endif
