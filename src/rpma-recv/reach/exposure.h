/* What the receiver exposes to a sender on one RDMA device: the pool's data
 * range (never the pool header) and what each persistence method registers
 * of its own (methods/recv_method.h); which methods that allows; and the accept
 * descriptor that describes it all. Registered once per device and kept
 * across senders. */
#ifndef RECV_EXPOSURE_H
#define RECV_EXPOSURE_H

#include "methods/commit.h"
#include "pool/pmem_target.h"
#include "proto/descriptor.h"
#include "reach/write_windows.h"

#include <stdbool.h>
#include <stdint.h>

struct recv_exposure_config {
	bool direct_write_to_pmem; /* the user says DDIO is off */
	bool append_only;	   /* writers never reach what is committed */
	uint32_t slot_size;	   /* staging ring slot = largest batch */
	uint16_t slots;		   /* ring slots = credits */
};

/* The staging ring's length: a slot per credit. */
static inline uint64_t
recv_exposure_ring_len(const struct recv_exposure_config *cfg)
{
	return (uint64_t)cfg->slot_size * cfg->slots;
}

struct rs_conn;
struct rs_error;
struct rs_mr;
struct rs_peer;
struct recv_exposure;

/* Registers on the device conn runs on what each method can take there
 * (an on-demand method's own memory: later, see recv_exposure_take). A
 * method that cannot be offered is left out with a notice. Returns 0, or
 * a negative rs_errc with the reason in err (no protection domain). */
int recv_exposure_new(const struct rs_conn *conn,
		      const struct recv_pmem_target *target,
		      const struct recv_exposure_config *cfg,
		      struct recv_exposure **out, struct rs_error *err);
void recv_exposure_delete(struct recv_exposure **e);

/* True when conn runs on the device e was registered on. */
bool recv_exposure_serves(const struct recv_exposure *e,
			  const struct rs_conn *conn);
/* The protection domain of writers that reach the pool through windows
 * or a ring (gpspm, staged), and of writers in their auth challenge. */
struct rs_peer *recv_exposure_peer(const struct recv_exposure *e);
/* A protection domain for one session alone on that device, for a reader
 * (apart from every region a writer may write) or for a writer that needs
 * a key to the whole data range with `access` (0: none): then, when one
 * was registered ahead, that key comes with it in *whole (else *whole is
 * NULL and the caller registers its own). NULL with err when none can be
 * made. */
struct rs_peer *recv_exposure_own_peer(struct recv_exposure *e, unsigned access,
				       struct rs_mr **whole,
				       struct rs_error *err);
/* Where the device binds windows and the log's writers may write all of
 * its data range (apm, flush): the protection domain of such writers, and
 * the range registered on it once for windows only, which each such
 * writer reaches through a window bound on its queue pair. NULL elsewhere
 * (such a writer then takes recv_exposure_own_peer's). */
struct rs_peer *recv_exposure_one_sided_peer(const struct recv_exposure *e);
struct rs_mr *recv_exposure_one_sided_range(const struct recv_exposure *e);
/* Frees such a domain once its queue pair and every registration on it
 * are gone (one still in use is kept, and said); with refill, registers
 * the whole data range ahead again for the next writer that needs it. */
void recv_exposure_drop_own_peer(struct recv_exposure *e, struct rs_peer **peer,
				 bool refill);
/* Whether writers reach the pool through memory windows on this device,
 * and what their windows are made for (reach/write_windows.h). */
bool recv_exposure_windows(const struct recv_exposure *e);
struct recv_write_windows_config
recv_exposure_windows_config(const struct recv_exposure *e);
/* Whether the device keeps a window's accesses inside its range (not
 * Soft-RoCE: there a window's key reaches its whole region). */
bool recv_exposure_windows_bounded(const struct recv_exposure *e);
/* RS_METHOD_BIT() of each method offered on this device. */
uint8_t recv_exposure_methods(const struct recv_exposure *e);
/* The DRAM staged commits copy from (empty when there is none). */
struct recv_staging recv_exposure_staging(const struct recv_exposure *e);

/* A session that commits by method m is granted: what m registers of its
 * own (an on-demand method's: the staging ring) is registered with the
 * first such session and kept until the last gives it back. 0, or a
 * negative rs_errc with the reason in err. Nothing for other methods. */
int recv_exposure_take(struct recv_exposure *e, enum rs_method m,
		       struct rs_error *err);
void recv_exposure_give_back(struct recv_exposure *e, enum rs_method m);

/* Fills the accept descriptor with the regions, the geometry and the
 * committed write offset as they are now (an on-demand method's own
 * region only while taken). */
void recv_exposure_describe(const struct recv_exposure *e,
			    struct rs_accept_info *info);

#endif
