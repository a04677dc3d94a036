/* Counts on the command line and in configuration files: a whole number in
 * plain decimal digits. strtoull alone would take a sign, leading blanks or
 * trailing text ("+5", " 5", "5x"); one rule for every place a count is
 * given keeps the command line and the file in step. */
#ifndef RS_COUNT_H
#define RS_COUNT_H

#include <stdbool.h>
#include <stdint.h>

/* True, with *out set, when text is digits only and from min to max. */
bool rs_count_parse(const char *text, uint64_t min, uint64_t max,
		    uint64_t *out);

#endif
