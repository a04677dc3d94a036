/* A line of where a run's or a session's time went, phase by phase:
 * "PREFIX name=MS name=MS ...", each phase in ms (one decimal) from the end
 * of the one before; "-" for a phase not reached, and the next counts from
 * the last that was. Built in a buffer, so that it is written at once
 * (stderr is unbuffered: each piece printed alone would be a write of its
 * own). rpma-send --stats' phases line and rpma-recv -v's line at a
 * session's end. */
#ifndef RS_CLI_PHASE_LINE_H
#define RS_CLI_PHASE_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_phase_line {
	char text[512];
	size_t at;
	uint64_t from_ns; /* the end of the last phase reached (0: none) */
};

/* Starts the line with prefix, the first phase counting from from_ns. */
void rs_phase_line_start(struct rs_phase_line *l, const char *prefix,
			 uint64_t from_ns);
/* Adds " name=MS", or " name=-" when known is false: a span measured
 * apart from the others. */
void rs_phase_line_value(struct rs_phase_line *l, const char *name, bool known,
			 double ms);
/* Adds the phase ending at end_ns (0: not reached). */
void rs_phase_line_step(struct rs_phase_line *l, const char *name,
			uint64_t end_ns);

#endif
