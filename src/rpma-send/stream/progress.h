/* --progress: a one-line status on stderr (bytes committed, rate, elapsed,
 * and what the caller adds: each replica's bytes), redrawn at most once a
 * second, and ended with a newline at the end. */
#ifndef SEND_PROGRESS_H
#define SEND_PROGRESS_H

#include "common/stats.h"

#include <stdbool.h>

struct send_progress {
	const char *what; /* what the bytes were: "committed" when NULL */
	bool enabled;
	bool drawn;
	uint64_t last_ns;
};

/* enabled: asked for; forced: even when stderr is not a terminal. */
void send_progress_init(struct send_progress *p, bool enabled, bool forced);
/* True when a redraw is due (so the caller builds its detail only then). */
bool send_progress_due(const struct send_progress *p, uint64_t now_ns);
void send_progress_draw(struct send_progress *p, const struct send_stats *st,
			const char *detail);
void send_progress_finish(struct send_progress *p, const struct send_stats *st,
			  const char *detail);
/* --progress=commits: the stream's committed input (every byte before
 * input offset `input` is committed), one line, whatever -q says. */
void send_progress_commit_line(uint64_t input);

#endif
