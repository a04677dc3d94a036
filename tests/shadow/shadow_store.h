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

/* A pool's shadow: its image, mapped, and its mirror (-1: none). */
struct shadow {
	uint8_t *img;
	size_t size;
	int mirror;
};

/* Maps the shadow of the pool at path (size bytes) into *out, made anew
 * from `now` (the pool as the mapping shows it now: what was there when
 * the receiver mapped it counts as persistent). With RPMA_SHADOW_MIRROR
 * set to a folder, the shadow is written through to the same files there
 * as well: a shadow that outlives the machine (a share on the test bed's
 * host) for a cut of the whole host, whose RAM and tmpfs go with it.
 * Returns 0, or -1 with a line on stderr. */
int shadow_store_open(const char *dir, const char *path, const uint8_t *now,
		      size_t size, struct shadow *out);
/* [from, to) of the pool (its mapping at pool) is persistent now: into the
 * shadow, and through to its mirror before this returns. */
void shadow_store_copy(const struct shadow *s, const uint8_t *pool,
		       uint64_t from, uint64_t to);
void shadow_store_close(struct shadow *s);

/* Puts every pool with a shadow in dir back as its shadow says, but for
 * the file range [keep_from, keep_to) of each, left as the pool holds it
 * (what a one-sided writer made persistent through the RDMA device, which
 * the model cannot see; an empty range: none); one line per pool on stdout
 * with the bytes that changed (the stores a cut lost). Returns the number
 * of pools restored, or -1 with a line on stderr. */
int shadow_restore(const char *dir, uint64_t keep_from, uint64_t keep_to);

#endif
