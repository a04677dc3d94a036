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
#include <stdint.h>

/* Hinted refusals are asked again, without a word, for this long in all,
 * by the clock from the first (a large receiver's start may take it): the
 * attempts' own time counts, so a slow or restarting receiver cannot
 * stretch it. */
#define SEND_HINTED_WAIT_MS (120 * 1000)

/* Why to ask again (a phrase: "is opening its logs"), or NULL. */
const char *send_hint_of(int rc, const struct rs_reject_info *refused);

/* The hinted waits of one connection's attempts: when the first hinted
 * refusal came (0: none yet), how long ago the last one found it, and the
 * next wait (0: none, the last refusal said no time). */
struct send_hint_wait {
	uint64_t first_ns;
	unsigned waited_ms;
	unsigned next_ms;
};

/* Whether to ask again after this refusal, heard at now_ns: sets
 * w->next_ms to its hint (100 ms when it gives none); false (next_ms 0)
 * when it says no time or SEND_HINTED_WAIT_MS have passed since the
 * first hinted refusal. */
bool send_hint_wait_next(struct send_hint_wait *w, int rc,
			 const struct rs_reject_info *refused, uint64_t now_ns);

#endif
