/* The scenarios of a one-sided writer (apm, flush) whose stored write
 * offset, and whose keys once it is taken over, the receiver must not
 * trust (rogue_offset.c). ARG: "apm" or "flush" (the default). */
#ifndef ROGUE_OFFSET_H
#define ROGUE_OFFSET_H

#include "rogue.h"

/* What the one-sided scenarios share with others (rogue_seal.c): */
/* The method ARG names: RS_METHOD_APM for "apm", else RS_METHOD_FLUSH. */
uint8_t os_method(const char *arg);
/* A writer's session by method m, granted keys to the log and its offset
 * word; NORUN (noted, closed) when it cannot be had. */
int os_open(struct rogue *r, uint8_t m, const char *name);
/* Stores value in the offset word as m does, made persistent if asked. */
int os_store_offset(struct rogue *r, uint8_t m, uint64_t value, bool persist);
/* Writes the one-sided chunk at write offset w, persistent. */
int os_write_chunk(struct rogue *r, uint8_t m, uint64_t w);
/* The chunk at the log's end and its offset, both persistent; *end: the
 * log's end after it. */
int os_honest_batch(struct rogue *r, uint8_t m, uint64_t *end);
/* os_open, then os_honest_batch: closed when either fails. */
int os_open_batch(struct rogue *r, uint8_t m, const char *name, uint64_t *end);
/* A reader is told the log ends at want (SAFE), or not (UNSAFE). */
int os_end_is(const struct rogue *r, uint64_t want, const char *when);
/* The receiver ends r's session within a few replies' time. */
int os_ended_by_receiver(struct rogue *r);

int scenario_offset_past_end(struct rogue *r, const char *arg);
int scenario_offset_before_start(struct rogue *r, const char *arg);
int scenario_offset_backwards(struct rogue *r, const char *arg);
int scenario_unflushed_offset(struct rogue *r, const char *arg);
int scenario_offset_backwards_at_cut(struct rogue *r, const char *arg);
int scenario_stale_keys_reader(struct rogue *r, const char *arg);

#endif
