/* The scenarios of a one-sided writer (apm, flush) whose stored write
 * offset, and whose keys once it is taken over, the receiver must not
 * trust (rogue_offset.c). ARG: "apm" or "flush" (the default). */
#ifndef ROGUE_OFFSET_H
#define ROGUE_OFFSET_H

#include "rogue.h"

int scenario_offset_past_end(struct rogue *r, const char *arg);
int scenario_offset_before_start(struct rogue *r, const char *arg);
int scenario_offset_backwards(struct rogue *r, const char *arg);
int scenario_unflushed_offset(struct rogue *r, const char *arg);
int scenario_stale_keys_reader(struct rogue *r, const char *arg);

#endif
