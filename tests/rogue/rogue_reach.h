/* What a peer can reach with the keys of regions it was never given
 * (rogue_reach.c). ARG: "gpspm" (a gpspm writer's queue pair, the
 * default) or "challenge" (a peer in its auth challenge). */
#ifndef ROGUE_REACH_H
#define ROGUE_REACH_H

#include "rogue.h"

int scenario_spare_key(struct rogue *r, const char *arg);

#endif
