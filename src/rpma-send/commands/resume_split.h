/* Where a log's last bytes end when a rotation came right after the
 * sender shipped them: the tail's first part ends the older file, its last
 * part begins the newer one. Pure. */
#ifndef SEND_RESUME_SPLIT_H
#define SEND_RESUME_SPLIT_H

#include <stddef.h>
#include <stdint.h>

/* The largest q (0 < q < tail_len) such that the newer file's first q
 * bytes are the tail's last q and the older file ends with the tail's
 * first tail_len - q bytes; 0 when there is none. */
size_t resume_split_at(const uint8_t *tail, size_t tail_len,
		       const uint8_t *older, size_t older_len,
		       const uint8_t *newer, size_t newer_len);

#endif
