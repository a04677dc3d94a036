/* Where a run's time went, phase by phase: the second line of --stats.
 * Each phase is measured from the end of the one before, in ms: exec (the
 * process's start to main), start (to the first connect: options, key,
 * input), resolve, prepare, answer, grant (the first session's steps,
 * session/session.h), to_first_write (the ring's keys, the first batch),
 * streaming (to the last commit), teardown (to the line). A phase not
 * reached is "-" and the next one counts from the last that was. */
#ifndef SEND_PHASES_H
#define SEND_PHASES_H

#include "common/stats.h"
#include "session/session.h"

#include <stdint.h>
#include <stdio.h>

struct send_phases {
	uint64_t exec_ns; /* the process's age at main (0: unknown) */
	uint64_t main_ns; /* main entered (CLOCK_MONOTONIC) */
	const struct rs_session_times *session; /* the first connected */
	const struct send_stats *stats;
	uint64_t now_ns;
};

/* Writes the line to out. */
void send_phases_print(FILE *out, const struct send_phases *p);

#endif
