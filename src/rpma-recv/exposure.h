/* What the receiver exposes to a sender on one RDMA device: the pool's data
 * range (never the pool header), the write-offset word for APM, and the DRAM
 * staging ring; which methods that allows; and the accept descriptor that
 * describes it all. Registered once per device and kept across senders. */
#ifndef RECV_EXPOSURE_H
#define RECV_EXPOSURE_H

#include "pmem_target.h"
#include "proto/descriptor.h"

#include <stdbool.h>
#include <stdint.h>

struct recv_exposure_config {
	bool direct_write_to_pmem; /* the user says DDIO is off */
	uint32_t slot_size;	   /* staging ring slot = largest batch */
	uint16_t slots;		   /* ring slots = credits */
};

struct rs_conn;
struct rs_mr;
struct rs_peer;

struct recv_exposure {
	struct rs_peer *peer;
	struct rs_mr *data_mr;	 /* [start, end) of the log, remote write */
	struct rs_mr *offset_mr; /* the write-offset word, APM only */
	uint8_t *ring;
	uint64_t ring_len;
	struct rs_mr *ring_mr;
	uint8_t methods; /* RS_METHOD_BIT() of each method offered */
	struct recv_exposure_config cfg;
};

/* Registers what the device conn runs on can take. Failing to register the pool
 * is not fatal when the staging ring works: staged is then offered alone, and
 * the reason is logged once. Returns 0, or -1 with a reason in err. */
int recv_exposure_setup(struct recv_exposure *e, const struct rs_conn *conn,
			const struct rs_pmem_target *target,
			const struct recv_exposure_config *cfg, char *err,
			size_t errlen);
void recv_exposure_teardown(struct recv_exposure *e);

/* Fills the accept descriptor with the regions, the geometry and the
 * committed write offset as they are now. */
void recv_exposure_describe(const struct recv_exposure *e,
			    const struct rs_pmem_target *target,
			    struct rs_accept_info *info);

#endif
