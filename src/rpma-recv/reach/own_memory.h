/* The memory a method needs registered of its own on a device besides the
 * pool (methods/recv_method.h: its own_memory), one row per kind: how it
 * is allocated and registered on a device, and how a grant describes it
 * to a sender. Today one kind: the staged method's ring. reach/exposure.c
 * keeps a region per method and calls these; this file knows no exposure. */
#ifndef RECV_REACH_OWN_MEMORY_H
#define RECV_REACH_OWN_MEMORY_H

#include "methods/recv_method.h"
#include "proto/descriptor.h"

#include <stdint.h>

struct rs_error;
struct rs_mr;
struct rs_peer;

/* A region a method registered of its own, and the memory it allocated
 * for it (freed with it). */
struct recv_own_region {
	struct rs_mr *mr;
	void *mem;
};

/* Registers what m needs of its own on peer's device into *own (nothing
 * for a method that needs none), a staging ring of ring_len bytes for
 * the staged method, which *staging then describes to its commits: 0, or
 * a negative rs_errc with the reason in err. What it allocated is in *own
 * either way (the caller gives it back). */
int recv_own_memory_expose(const struct recv_method *m, struct rs_peer *peer,
			   uint64_t ring_len, struct recv_own_region *own,
			   struct recv_staging *staging, struct rs_error *err);
/* Gives back what own holds (deregistered and freed), and empties
 * *staging when it described that memory. Nothing for an empty region. */
void recv_own_memory_withdraw(struct recv_own_region *own,
			      struct recv_staging *staging);
/* Describes what m registered (own) into a grant; slot_size: the staging
 * ring's slot, the largest batch. */
void recv_own_memory_describe(const struct recv_method *m,
			      const struct recv_own_region *own,
			      uint32_t slot_size, struct rs_accept_info *info);

#endif
