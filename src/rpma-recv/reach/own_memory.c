/* A method's own memory on a device (own_memory.h): one row per kind. */
#include "reach/own_memory.h"

#include "error.h"
#include "rdma/mr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The staged method's DRAM ring, which its writers write into: allocated
 * and registered for remote writes (exposure.c takes it while a staged
 * writer is connected). */
static int staging_ring_expose(struct rs_peer *peer, uint64_t len,
			       struct recv_own_region *own,
			       struct recv_staging *staging,
			       struct rs_error *err)
{
	if (posix_memalign(&own->mem, 4096, len)) {
		own->mem = NULL;
		return rs_error_set(err, RS_E_NOMEM, ENOMEM,
				    "cannot allocate a %llu-byte staging ring",
				    (unsigned long long)len);
	}
	memset(own->mem, 0, len);
	if (rs_mr_reg(peer, own->mem, len, RS_MR_REMOTE_WRITE, &own->mr, err))
		return rs_error_wrap(err, "cannot register the staging ring");
	*staging = (struct recv_staging){.ring = own->mem, .length = len};
	return 0;
}

static void staging_ring_describe(const struct recv_own_region *own,
				  uint32_t slot_size,
				  struct rs_accept_info *info)
{
	info->staging = rs_mr_describe(own->mr, RS_MR_USAGE_WRITE_DST);
	info->staging_slot_size = slot_size;
}

static const struct {
	int (*expose)(struct rs_peer *peer, uint64_t len,
		      struct recv_own_region *own, struct recv_staging *staging,
		      struct rs_error *err);
	void (*describe)(const struct recv_own_region *own, uint32_t slot_size,
			 struct rs_accept_info *info);
} own_memory[] = {
    [RECV_OWN_NONE] = {0, 0},
    [RECV_OWN_STAGING_RING] = {staging_ring_expose, staging_ring_describe},
};

int recv_own_memory_expose(const struct recv_method *m, struct rs_peer *peer,
			   uint64_t ring_len, struct recv_own_region *own,
			   struct recv_staging *staging, struct rs_error *err)
{
	if (!own_memory[m->own_memory].expose)
		return 0;
	return own_memory[m->own_memory].expose(peer, ring_len, own, staging,
						err);
}

void recv_own_memory_describe(const struct recv_method *m,
			      const struct recv_own_region *own,
			      uint32_t slot_size, struct rs_accept_info *info)
{
	if (own_memory[m->own_memory].describe)
		own_memory[m->own_memory].describe(own, slot_size, info);
}

void recv_own_memory_withdraw(struct recv_own_region *own,
			      struct recv_staging *staging)
{
	if (own->mem && staging->ring == own->mem)
		*staging = (struct recv_staging){0};
	rs_mr_dereg(&own->mr);
	free(own->mem);
	own->mem = NULL;
}
