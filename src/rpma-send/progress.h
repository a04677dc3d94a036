/* --progress: a one-line status on stderr (bytes committed, rate, elapsed),
 * redrawn at most once a second, and ended with a newline at the end. */
#ifndef SEND_PROGRESS_H
#define SEND_PROGRESS_H

#include "stats.h"

#include <stdbool.h>

struct send_progress {
	bool enabled;
	bool drawn;
	uint64_t last_ns;
};

/* enabled: asked for; forced: even when stderr is not a terminal. */
void send_progress_init(struct send_progress *p, bool enabled, bool forced);
void send_progress_update(struct send_progress *p, const struct send_stats *st);
void send_progress_finish(struct send_progress *p, const struct send_stats *st);

#endif
