/* The scenarios of a log being rotated (rogue_seal.c): what a writer or a
 * takeover does while the seal waits, and a reader's key after it. */
#ifndef ROGUE_SEAL_H
#define ROGUE_SEAL_H

#include "rogue.h"

int scenario_seal_commit(struct rogue *r, const char *arg);
int scenario_seal_takeover(struct rogue *r, const char *arg);
int scenario_reader_after_rotation(struct rogue *r, const char *arg);

#endif
