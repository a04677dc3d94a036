/* --stats of a stream: one machine-readable line of the run, one more per
 * replica when there are several, then where the run's time went, phase
 * by phase (common/phases.h); stats are asked for, so -q does not hide
 * them. */
#ifndef SEND_COMMANDS_SHIP_STATS_H
#define SEND_COMMANDS_SHIP_STATS_H

#include "common/phases.h"
#include "stream/ship_result.h"

#include <stdio.h>

/* Writes the lines to out. times holds when the process and main began
 * and the first session's times; its stats and end are set here. */
void ship_stats_print(FILE *out, const struct ship_result *r,
		      struct send_phases *times);

#endif
