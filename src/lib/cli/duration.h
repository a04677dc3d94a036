/* Durations on the command line and in config files: a number with an
 * optional unit, ms, s, m or h, e.g. 500ms, 10s, 2m. A bare number is in
 * the option's own unit: seconds for the receiver's keys, milliseconds for
 * the sender's --timeout and --flush-interval (as they always were). */
#ifndef RS_DURATION_H
#define RS_DURATION_H

#include <stddef.h>
#include <stdint.h>

/* Sets *ms, a bare number being seconds; RS_E_INVAL for malformed input or
 * overflow (the caller names the option and the range it wants). */
int rs_duration_parse(const char *text, uint64_t *ms);

/* The same with a bare number in units of bare_ms milliseconds. */
int rs_duration_parse_bare(const char *text, uint64_t bare_ms, uint64_t *ms);

/* Milliseconds the way people read them, in the largest unit that divides
 * them: "1 hour", "10 min", "5 s", "500 ms". */
void rs_duration_show(uint64_t ms, char *buf, size_t len);

#endif
