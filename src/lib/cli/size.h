/* Byte sizes on the command line: a number with an optional binary suffix
 * (K, M, G, T, optionally followed by "iB" or "B"), e.g. 64M, 1GiB, 4096. */
#ifndef RS_SIZE_H
#define RS_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* Sets *out; RS_E_INVAL for malformed input or overflow (the caller names
 * the option and the form it wants). */
int rs_size_parse(const char *text, uint64_t *out);

/* A size the way it is typed, in the largest unit that divides it: 4K,
 * 1M, 2G, or bytes. */
void rs_size_show(uint64_t v, char *buf, size_t len);

/* Formats bytes compactly for humans ("1.5 MiB") into buf. */
const char *rs_size_format(uint64_t bytes, char *buf, size_t len);

#endif
