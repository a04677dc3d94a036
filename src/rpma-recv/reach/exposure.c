/* What the receiver exposes of a log on one RDMA device (exposure.h). */
#include "reach/exposure.h"

#include "cli/log.h"
#include "error.h"
#include "methods/commit.h"
#include "methods/recv_method.h"
#include "pool/pmem_target.h"
#include "proto/method.h"
#include "proto/pool_layout.h"
#include "rdma/mr.h"
#include "rdma/mw.h"
#include "rdma/peer.h"
#include "reach/own_memory.h"
#include "reach/write_windows.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What an exposure is made of (opaque to everyone else). */
struct recv_exposure {
	/* The protection domain of the log's writers that write through
	 * windows or a ring (gpspm, staged) and of every writer's queue pair
	 * in its auth challenge: what is registered here with remote access
	 * is the staging ring while a staged writer holds it; the pool's
	 * regions are registered for windows only (no key of their own). */
	struct rs_peer *peer;
	const struct recv_pmem_target *target;
	struct recv_exposure_config cfg;
	/* [start, end) of the log registered with spare_access (to learn what
	 * the device takes: pool_writable, pool_flushable) on a protection
	 * domain of its own, spare_pd, where no queue pair lives, on a device
	 * that binds no windows: the next writer that needs a key to all of
	 * it (apm, flush, gpspm) takes both as its own, its queue pair made
	 * there, so that no other queue pair ever reaches the region
	 * (reach/writer_keys.h). Made anew after such a writer's session. */
	struct rs_peer *spare_pd;
	struct rs_mr *spare;
	unsigned spare_access;
	/* Where the device binds windows, instead of the spare: [start, end)
	 * registered once for windows only (no key of its own; with flush
	 * where the device takes it) on a protection domain of the log's
	 * apm and flush writers, one granted at a time: each reaches it
	 * through a window bound on its queue pair for its session alone
	 * (reach/memory.c), so no registration is made a session. */
	struct rs_peer *one_sided_pd;
	struct rs_mr *one_sided_range;
	bool windows;
	bool windows_bounded; /* the device keeps them to their range */
	bool pool_writable;
	bool pool_flushable; /* it takes RDMA FLUSH to persistence */
	struct recv_own_region own[RS_METHOD_COUNT]; /* by method id */
	unsigned users[RS_METHOD_COUNT]; /* sessions of an on-demand method */
	struct recv_staging staging;	 /* what staged commits copy from */
	uint8_t methods;		 /* RS_METHOD_BIT() of each offered */
};

/* Whether writers reach the pool through memory windows on this device:
 * when it binds them and the user did not turn them off (to measure what
 * they cost). An append-only log needs windows that keep to their range;
 * where they do not, it is written by the staged method only. Notes in
 * windows_bounded whether the device keeps them to their range. */
static bool windows_wanted(struct recv_exposure *e)
{
	const char *env = getenv("RPMA_RECV_WINDOWS");
	const char *path = e->target->path;
	if (env && !strcmp(env, "off"))
		return false;
	/* Each device was described at start; here per log, for -v. */
	if (!rs_peer_has_windows(e->peer)) {
		rs_verbose(
		    "the RDMA device of %s cannot bind memory windows: %s",
		    path,
		    e->cfg.append_only
			? "the log is append-only, its senders commit "
			  "through the staged method only"
			: "its writers can rewrite what they committed");
		return false;
	}
	e->windows_bounded = rs_peer_windows_bounded(e->peer);
	if (e->windows_bounded)
		return true;
	rs_verbose(
	    "the RDMA device of %s does not keep a memory window's "
	    "accesses inside its range (Soft-RoCE): %s",
	    path,
	    e->cfg.append_only
		? "the log is append-only, its senders commit through the "
		  "staged method only"
		: "windows are bound to regions of the tail from the "
		  "head's page, a writer's key reaches back as far as its "
		  "region begins");
	return !e->cfg.append_only;
}

/* A protection domain of its own, with the whole data range registered
 * on it with e->spare_access, for the next writer that needs a key to all
 * of it. 0, or a negative rs_errc with the reason in err. */
static int register_range(struct recv_exposure *e, struct rs_peer **pd,
			  struct rs_mr **mr, unsigned access,
			  struct rs_error *err)
{
	const struct recv_pmem_target *t = e->target;
	int rc = rs_peer_new_like(e->peer, pd, err);
	if (rc)
		return rc;
	rc = rs_mr_reg(*pd, t->base + t->start, t->end - t->start, access, mr,
		       err);
	if (rc)
		rs_peer_delete(pd);
	return rc;
}

static int make_spare(struct recv_exposure *e, struct rs_error *err)
{
	return register_range(e, &e->spare_pd, &e->spare, e->spare_access, err);
}

/* The whole range registered ahead for the writers that write all of it:
 * for windows over it (windows) or as the next such writer's key, with
 * flush where the device takes it (pool_flushable), else without;
 * pool_writable when either was registered. */
static void register_whole(struct recv_exposure *e, bool windows,
			   bool flush_possible, struct rs_error *flush_err,
			   struct rs_error *whole_err)
{
	struct rs_peer **pd = windows ? &e->one_sided_pd : &e->spare_pd;
	struct rs_mr **mr = windows ? &e->one_sided_range : &e->spare;
	unsigned base = windows ? RS_MR_BIND : RS_MR_REMOTE_WRITE;
	struct rs_error err = {0};
	e->spare_access = RS_MR_REMOTE_WRITE | RS_MR_FLUSH;
	if (flush_possible) {
		e->pool_flushable =
		    register_range(e, pd, mr, base | RS_MR_FLUSH, &err) == 0;
		if (!e->pool_flushable)
			*flush_err = err;
	}
	if (!*mr) {
		e->spare_access = RS_MR_REMOTE_WRITE;
		if (register_range(e, pd, mr, base, &err))
			*whole_err = err;
	}
	e->pool_writable = *mr != 0;
}

/* Whether the device can register the pool for windows: one page of it,
 * given back at once (each writer registers the part of the tail it
 * reaches: reach/write_windows.h). */
static bool windows_registrable(struct recv_exposure *e, struct rs_error *err)
{
	const struct recv_pmem_target *t = e->target;
	struct rs_mr *probe = 0;
	uint64_t len = t->end - t->start < 4096 ? t->end - t->start : 4096;
	if (rs_mr_reg(e->peer, t->base + t->start, len, RS_MR_BIND, &probe,
		      err))
		return false;
	rs_mr_dereg(&probe);
	return true;
}

/* The log's data range, for the methods that write it in place: reached
 * through windows where the device binds them (each writer's over the part
 * of the tail it reaches), else with a key to all of it; the whole range
 * is registered too where apm or flush, which write all of it, may be
 * offered. Failing is not fatal: staged needs none of it. An append-only
 * log's pool without windows is not registered at all: no key to write it
 * exists. When the whole range was wanted and the device refused it, for
 * persistent flushes or at all, its reasons go to flush_err and whole_err
 * (left untouched otherwise), for the methods' notices. */
static void register_pool(struct recv_exposure *e, bool apm_possible,
			  bool flush_possible, struct rs_error *flush_err,
			  struct rs_error *whole_err)
{
	struct rs_error err = {0};
	e->windows_bounded = false;
	e->windows = windows_wanted(e);
	if (e->cfg.append_only && !e->windows)
		return;
	bool one_sided =
	    !e->cfg.append_only && (apm_possible || flush_possible);
	if (!e->cfg.append_only && (!e->windows || one_sided))
		register_whole(e, e->windows, flush_possible, flush_err,
			       whole_err);
	if (e->windows && !windows_registrable(e, &err))
		e->windows = e->windows_bounded = false;
	const struct rs_error *why = err.msg[0] ? &err : whole_err;
	if (!e->windows && !e->pool_writable)
		rs_info("cannot register the pool for direct writes (%s): %s; "
			"offering the staged method only",
			strerror(why->sys_errno), why->msg);
}

/* What m needs of its own registered on e's device (own_memory.h). */
static int expose_own(struct recv_exposure *e, const struct recv_method *m,
		      struct rs_error *err)
{
	return recv_own_memory_expose(m, e->peer,
				      recv_exposure_ring_len(&e->cfg),
				      &e->own[m->id], &e->staging, err);
}

/* Offers m when it can be offered and registers what it needs (an
 * on-demand method: when a session takes it). */
static void offer(struct recv_exposure *e, const struct recv_method *m,
		  const struct recv_offer *o)
{
	struct rs_error why = {0};
	if (!m->offered(o, &why)) {
		if (why.msg[0] && m->notice_verbose)
			rs_verbose("%s", why.msg);
		else if (why.msg[0])
			rs_info("%s", why.msg);
		return;
	}
	if (!m->on_demand && expose_own(e, m, &why))
		rs_info("%s", why.msg);
	else
		e->methods |= RS_METHOD_BIT(m->id);
}

static void expose_methods(struct recv_exposure *e)
{
	bool byte_addressable = recv_pmem_target_byte_addressable(e->target);
	const char *flush_why_not = 0;
	bool flush_ops = rs_peer_can_flush(e->peer, &flush_why_not);
	struct rs_error flush_err = {0}, whole_err = {0};
	register_pool(e, e->cfg.direct_write_to_pmem && byte_addressable,
		      flush_ops && byte_addressable, &flush_err, &whole_err);
	struct recv_offer o = {
	    .path = e->target->path,
	    .direct_write_to_pmem = e->cfg.direct_write_to_pmem,
	    .byte_addressable = byte_addressable,
	    .pool_writable = e->pool_writable,
	    .pool_windows = e->windows,
	    .append_only = e->cfg.append_only,
	    .flush_ops = flush_ops,
	    .flush_why_not = flush_why_not,
	    .pool_flushable = e->pool_flushable,
	    .pool_why_not = whole_err.msg[0] ? whole_err.msg : 0,
	    .flush_reg_why_not = flush_err.msg[0] ? flush_err.msg : 0,
	};
	for (size_t i = 0; recv_methods[i]; i++)
		offer(e, recv_methods[i], &o);
}

int recv_exposure_new(const struct rs_conn *conn,
		      const struct recv_pmem_target *target,
		      const struct recv_exposure_config *cfg,
		      struct recv_exposure **out, struct rs_error *err)
{
	struct recv_exposure *e = calloc(1, sizeof(*e));
	if (!e)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	e->target = target;
	e->cfg = *cfg;
	int rc = rs_peer_new(conn, &e->peer, err);
	if (rc) {
		recv_exposure_delete(&e);
		return rc;
	}
	expose_methods(e);
	*out = e;
	return 0;
}

/* What method m registered of its own, given back. */
static void withdraw(struct recv_exposure *e, enum rs_method m)
{
	recv_own_memory_withdraw(&e->own[m], &e->staging);
}

int recv_exposure_take(struct recv_exposure *e, enum rs_method m,
		       struct rs_error *err)
{
	const struct recv_method *method = recv_method_get(m);
	if (!method || !method->on_demand || e->users[m]++)
		return 0;
	int rc = expose_own(e, method, err);
	if (rc) {
		withdraw(e, m);
		e->users[m] = 0;
		return rc;
	}
	rs_verbose("%s: what method %s registers of its own is taken",
		   e->target->path, rs_method_name(m));
	return 0;
}

void recv_exposure_give_back(struct recv_exposure *e, enum rs_method m)
{
	const struct recv_method *method = recv_method_get(m);
	if (!method || !method->on_demand || !e->users[m] || --e->users[m])
		return;
	withdraw(e, m);
	rs_verbose("%s: what method %s registers of its own is given back",
		   e->target->path, rs_method_name(m));
}

/* A protection domain freed, or, while something still lives on it,
 * kept (never freed under what uses it) and said. */
static void drop_peer(const struct recv_exposure *e, struct rs_peer **peer)
{
	int rc = rs_peer_delete(peer);
	if (rc)
		rs_err("%s: cannot free a protection domain of its RDMA device "
		       "(%s): something still uses it; it is kept",
		       e->target->path, strerror(rc));
}

void recv_exposure_delete(struct recv_exposure **ep)
{
	struct recv_exposure *e = *ep;
	if (!e)
		return;
	rs_mr_dereg(&e->spare);
	drop_peer(e, &e->spare_pd);
	rs_mr_dereg(&e->one_sided_range);
	drop_peer(e, &e->one_sided_pd);
	for (size_t i = 0; i < RS_METHOD_COUNT; i++)
		withdraw(e, (enum rs_method)i);
	drop_peer(e, &e->peer);
	free(e);
	*ep = NULL;
}

bool recv_exposure_serves(const struct recv_exposure *e,
			  const struct rs_conn *conn)
{
	return rs_peer_serves(e->peer, conn);
}

struct rs_peer *recv_exposure_peer(const struct recv_exposure *e)
{
	return e->peer;
}

struct rs_peer *recv_exposure_own_peer(struct recv_exposure *e, unsigned access,
				       struct rs_mr **whole,
				       struct rs_error *err)
{
	struct rs_peer *p = 0;
	*whole = 0;
	if (access && e->spare && (e->spare_access & access) == access) {
		p = e->spare_pd;
		*whole = e->spare;
		e->spare_pd = 0;
		e->spare = 0;
		return p;
	}
	if (rs_peer_new_like(e->peer, &p, err))
		return 0;
	return p;
}

void recv_exposure_drop_own_peer(struct recv_exposure *e, struct rs_peer **peer,
				 bool refill)
{
	drop_peer(e, peer);
	/* The next such writer takes a registration made now, while no one
	 * waits for it; one that fails is made when it is needed. */
	struct rs_error err = {0};
	if (refill && e->pool_writable && !e->spare)
		make_spare(e, &err);
}

struct rs_peer *recv_exposure_one_sided_peer(const struct recv_exposure *e)
{
	return e->one_sided_range ? e->one_sided_pd : 0;
}

struct rs_mr *recv_exposure_one_sided_range(const struct recv_exposure *e)
{
	return e->one_sided_range;
}

bool recv_exposure_windows(const struct recv_exposure *e)
{
	return e->windows;
}

bool recv_exposure_windows_bounded(const struct recv_exposure *e)
{
	return e->windows_bounded;
}

struct recv_write_windows_config
recv_exposure_windows_config(const struct recv_exposure *e)
{
	const struct recv_pmem_target *t = e->target;
	return (struct recv_write_windows_config){.base = t->base,
						  .start = t->start,
						  .end = t->end,
						  .credits = e->cfg.slots,
						  .bounded =
						      e->windows_bounded};
}

uint8_t recv_exposure_methods(const struct recv_exposure *e)
{
	return e->methods;
}

struct recv_staging recv_exposure_staging(const struct recv_exposure *e)
{
	return e->staging;
}

void recv_exposure_describe(const struct recv_exposure *e,
			    struct rs_accept_info *info)
{
	const struct recv_pmem_target *t = e->target;
	memset(info, 0, sizeof(*info));
	info->peer_flags =
	    e->cfg.direct_write_to_pmem ? RS_PEER_DIRECT_WRITE_TO_PMEM : 0;
	info->methods = e->methods;
	info->credits = e->cfg.slots;
	/* The ranges only: a writer's keys are its own (writer_keys.h). */
	if (e->pool_writable || e->windows)
		info->data = (struct rs_mr_desc){
		    .addr = (uint64_t)(uintptr_t)(t->base + t->start),
		    .length = t->end - t->start,
		    .usage = RS_MR_USAGE_WRITE_DST};
	for (size_t i = 0; recv_methods[i]; i++) {
		const struct recv_method *m = recv_methods[i];
		bool held = !m->on_demand || e->users[m->id];
		if ((e->methods & RS_METHOD_BIT(m->id)) && held)
			recv_own_memory_describe(m, &e->own[m->id],
						 e->cfg.slot_size, info);
	}
	info->start_offset = t->start;
	info->end_offset = t->end;
	info->write_offset_value = recv_pmem_target_write_offset(t);
	memcpy(info->pool_uuid, t->uuid, sizeof(info->pool_uuid));
}
