/* Durations on the command line and in config files: a number with an
 * optional unit, ms, s (the default) or m, e.g. 10, 10s, 500ms, 2m. */
#ifndef RS_DURATION_H
#define RS_DURATION_H

#include <stdint.h>

/* Sets *ms; RS_E_INVAL for malformed input or overflow (the caller names
 * the option and the range it wants). */
int rs_duration_parse(const char *text, uint64_t *ms);

#endif
