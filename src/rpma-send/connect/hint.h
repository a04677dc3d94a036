/* Whether a receiver's refusal says to ask again after a while (the log
 * is opening, the receiver is busy taking other senders' connections, or
 * serves as many senders as it may for now): such a refusal comes with a
 * time to wait, and the sender asks again then, without a word and
 * without counting it against --retry. A log that another sender writes
 * says no time: that one is --retry's. Pure. */
#ifndef SEND_HINT_H
#define SEND_HINT_H

#include "proto/descriptor.h"

/* Why to ask again (a phrase: "is opening its logs"), or NULL. */
const char *send_hint_of(int rc, const struct rs_reject_info *refused);

#endif
