/* The shadow of a pool: what the persistence model (persist_shadow.c) says
 * a power cut keeps of it. One pair of files per pool in the shadow folder
 * (RPMA_SHADOW_DIR): NAME.img, as large as the receiver's mapping of the
 * pool, holding each byte as it was last made persistent, and NAME.path,
 * the pool's path. shadow_restore puts every pool back as its shadow says,
 * which is what the test bed does at a cut of the PMem, before the
 * receiver starts again. */
#ifndef SHADOW_STORE_H
#define SHADOW_STORE_H

#include <stddef.h>
#include <stdint.h>

/* Maps the shadow of the pool at path (size bytes) into *out, made anew
 * from `now` (the pool as the mapping shows it now: what was there when
 * the receiver mapped it counts as persistent). Returns 0, or -1 with a
 * line on stderr. */
int shadow_store_open(const char *dir, const char *path, const uint8_t *now,
		      size_t size, uint8_t **out);
void shadow_store_close(uint8_t *shadow, size_t size);

/* Puts every pool with a shadow in dir back as its shadow says; one line
 * per pool on stdout with the bytes that changed (the stores a cut lost).
 * Returns the number of pools restored, or -1 with a line on stderr. */
int shadow_restore(const char *dir);

#endif
