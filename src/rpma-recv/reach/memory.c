#include "reach/memory.h"

#include "cli/log.h"
#include "error.h"
#include "rdma/mr.h"
#include "rdma/mw.h"

#include <stdlib.h>
#include <string.h>

void recv_log_memory_init(struct recv_log_memory *lm,
			  const struct recv_exposure_config *cfg,
			  const struct recv_pmem_target *target)
{
	memset(lm, 0, sizeof(*lm));
	lm->cfg = cfg;
	lm->target = target;
}

void recv_log_memory_fini(struct recv_log_memory *lm)
{
	while (lm->devices) {
		struct recv_device_exposure *d = lm->devices;
		lm->devices = d->next;
		if (d->holders)
			rs_err("%s: its memory on an RDMA device is given back "
			       "while %u sessions hold it",
			       lm->target->path, d->holders);
		recv_exposure_delete(&d->exposure);
		free(d);
	}
}

/* Sessions of one log on two devices at once are normal (a dual-port
 * adapter, a receiver listening on every address): each device has what
 * it was given of the log, and one device's sender never takes away
 * another's. */
struct recv_device_exposure *
recv_log_memory_expose_on(struct recv_log_memory *lm,
			  const struct rs_conn *conn)
{
	for (struct recv_device_exposure *d = lm->devices; d; d = d->next)
		if (recv_exposure_serves(d->exposure, conn))
			return d;
	struct recv_device_exposure *d = calloc(1, sizeof(*d));
	struct rs_error err = {0};
	if (!d) {
		rs_err("%s: out of memory", lm->target->path);
		return 0;
	}
	if (recv_exposure_new(conn, lm->target, lm->cfg, &d->exposure, &err)) {
		rs_err("%s", err.msg);
		free(d);
		return 0;
	}
	d->next = lm->devices;
	lm->devices = d;
	return d;
}

unsigned recv_log_memory_holders(const struct recv_device_exposure *d)
{
	return d->holders;
}

uint8_t recv_log_memory_offered(const struct recv_device_exposure *d,
				const struct rs_connect_req *req,
				uint8_t allowed)
{
	uint8_t m = recv_exposure_methods(d->exposure) & allowed;
	/* An apm or flush sender writes the log's write offset itself: it
	 * would commit a replacement over the content kept meanwhile. */
	if (req->flags & RS_CONNECT_REPLACE)
		m &= (uint8_t)~RS_METHOD_SENDER_COMMITS;
	return m;
}

uint8_t recv_log_memory_usable(const struct recv_device_exposure *d,
			       const struct rs_connect_req *req,
			       uint8_t allowed)
{
	uint8_t m = recv_log_memory_offered(d, req, allowed);
	return req->flags & RS_CONNECT_VERIFY ? m
					      : rs_connect_req_usable(req, m);
}

void recv_sender_memory_init(struct recv_sender_memory *m,
			     const struct recv_log_memory *lm,
			     struct recv_device_exposure *d,
			     const struct rs_connect_req *req, uint8_t allowed,
			     const char *who)
{
	memset(m, 0, sizeof(*m));
	m->log = lm;
	m->device = d;
	m->exposure = d->exposure;
	d->holders++;
	m->req = req;
	m->allowed = allowed;
	m->who = who;
	m->took = RS_METHOD_AUTO;
	m->refill = true; /* unless its end says the log is closing */
}

static bool is_reader(const struct recv_sender_memory *m)
{
	return m->req->flags & RS_CONNECT_VERIFY;
}

const struct recv_method *
recv_sender_memory_method(const struct recv_sender_memory *m)
{
	if (is_reader(m))
		return 0;
	uint8_t usable = recv_log_memory_usable(m->device, m->req, m->allowed);
	return recv_method_choose(usable, m->req->method);
}

/* Whether the writer reaches the pool through windows: every writer but
 * an apm or flush one on a device that binds them (a staged writer asks
 * for no key; apm and flush write the whole range and the offset word). */
static bool windowed(const struct recv_sender_memory *m)
{
	const struct recv_method *method = recv_sender_memory_method(m);
	return method &&
	       !(RS_METHOD_BIT(method->id) & RS_METHOD_SENDER_COMMITS) &&
	       recv_exposure_windows(m->exposure);
}

bool recv_sender_memory_through_windows(const struct recv_sender_memory *m)
{
	const struct recv_method *method = recv_sender_memory_method(m);
	return windowed(m) && method->id == RS_METHOD_GPSPM;
}

/* Whether the writer writes all of the data range (apm, flush) through a
 * window of its own, over the range registered once for windows on the
 * device (reach/exposure.h). */
static bool whole_windowed(const struct recv_sender_memory *m)
{
	const struct recv_method *method = recv_sender_memory_method(m);
	return method &&
	       (RS_METHOD_BIT(method->id) & RS_METHOD_SENDER_COMMITS) &&
	       recv_exposure_one_sided_peer(m->exposure);
}

/* Whether the writer needs a key to the whole data range (apm, flush,
 * gpspm where the device binds no windows). */
static bool needs_whole_key(const struct recv_sender_memory *m)
{
	const struct recv_method *method = recv_sender_memory_method(m);
	return method && method->pool_access && !windowed(m) &&
	       !whole_windowed(m);
}

/* Where the session's queue pair and registrations live: a reader's, and
 * a writer's that holds a key to the whole data range, on a protection
 * domain of its own (no other queue pair reaches what is registered
 * there; the writer's may come with its key: reach/exposure.h); other
 * writers' on the log's device's shared one. */
static int pick_peer(struct recv_sender_memory *m)
{
	struct rs_error err = {0};
	struct recv_exposure *e = m->exposure;
	if (is_reader(m) || needs_whole_key(m)) {
		unsigned access =
		    is_reader(m) ? 0
				 : recv_sender_memory_method(m)->pool_access;
		m->peer =
		    recv_exposure_own_peer(e, access, &m->keys.pool, &err);
		m->owns_peer = m->peer != 0;
	} else if (whole_windowed(m)) {
		m->peer = recv_exposure_one_sided_peer(e);
	} else {
		m->peer = recv_exposure_peer(e);
	}
	if (!m->peer)
		rs_err("sender %s: %s", m->who, err.msg);
	return m->peer ? 0 : -1;
}

/* A writer whose method has memory of its own on demand (staged: its
 * ring) takes it before its session is configured. */
static int take_method_memory(struct recv_sender_memory *m)
{
	const struct recv_method *method = recv_sender_memory_method(m);
	if (!method || !method->on_demand)
		return 0;
	struct rs_error err = {0};
	if (recv_exposure_take(m->exposure, method->id, &err)) {
		rs_err("sender %s: %s", m->who, err.msg);
		return -1;
	}
	m->took = method->id;
	return 0;
}

/* A reader's ring of its own, readable: the receiver copies into it what
 * the reader may not read in place (the archive's bytes, what was
 * committed after its grant). Never the writer's staging ring: a reader
 * may run while the log is written. Deregistered when the session ends. */
static void prepare_read_ring(struct recv_sender_memory *m)
{
	struct rs_error err = {0};
	uint64_t len = recv_exposure_ring_len(m->log->cfg);
	if (posix_memalign((void **)&m->read_ring, 4096, len))
		return;
	if (rs_mr_reg(m->peer, m->read_ring, len, RS_MR_REMOTE_READ,
		      &m->read_ring_mr, &err)) {
		free(m->read_ring);
		m->read_ring = 0;
	}
}

int recv_sender_memory_prepare(struct recv_sender_memory *m,
			       const struct rs_conn *conn)
{
	(void)conn;
	if (pick_peer(m) || take_method_memory(m))
		return -1;
	if (is_reader(m))
		prepare_read_ring(m);
	return 0;
}

/* A reader reads in place the log's committed prefix as of its grant, no
 * further: its registration ends there, so the NIC refuses a read of
 * anything not committed yet (every device checks a region's range). */
static void register_read_prefix(struct recv_sender_memory *m,
				 uint64_t committed)
{
	const struct recv_pmem_target *t = m->log->target;
	struct rs_error err = {0};
	rs_mr_dereg(&m->read_mr);
	m->read_rewinds = t->rewinds;
	if (committed <= t->start ||
	    !rs_mr_reg(m->peer, t->base + t->start, committed - t->start,
		       RS_MR_REMOTE_READ, &m->read_mr, &err))
		return;
	rs_verbose("no remote read of the pool for reader %s (%s); reading "
		   "through a ring of its own",
		   m->who, err.msg);
}

/* A reading session is shown nothing it could write: no method, no key
 * to the pool's data range, its write offset or the staging ring. What it
 * reads is registered for reading only. */
static void describe_read(const struct recv_sender_memory *m,
			  struct rs_accept_info *info)
{
	info->peer_flags |= RS_PEER_READ_ONLY;
	info->methods = 0;
	info->data = (struct rs_mr_desc){0};
	info->write_offset = (struct rs_mr_desc){0};
	info->staging = (struct rs_mr_desc){0};
	if (m->read_mr)
		info->data_read =
		    rs_mr_describe(m->read_mr, RS_MR_USAGE_READ_SRC);
	if (m->read_ring_mr) {
		info->staging_read =
		    rs_mr_describe(m->read_ring_mr, RS_MR_USAGE_READ_SRC);
		info->staging_slot_size = m->log->cfg->slot_size;
	}
}

/* A window grant shows the data range without a key and no apm or
 * flush; a log without gpspm shows no data range at all. */
static void describe_windows(struct rs_accept_info *info)
{
	info->methods &= (uint8_t)~RS_METHOD_SENDER_COMMITS;
	if (!(info->methods & RS_METHOD_BIT(RS_METHOD_GPSPM))) {
		info->data = (struct rs_mr_desc){0};
		return;
	}
	info->peer_flags |= RS_PEER_WINDOWS;
	info->data.rkey = 0;
}

/* How long the binding of a writer's window may take before its session
 * is refused (rxe on Linux 6.12 binds on a thread of its own). */
#define WHOLE_WINDOW_BIND_MS 1000

/* An apm or flush writer's window over the whole data range, bound on its
 * queue pair (ready, its peer not told yet, or waiting for the grant), to
 * be named in the grant: its key reaches nothing once the session ends (the
 * window goes before its queue pair). Whether it is bound; the reason not
 * is said. */
static bool bind_whole_window(struct recv_sender_memory *m,
			      struct rs_conn *conn,
			      const struct recv_method *method)
{
	const struct recv_pmem_target *t = m->log->target;
	struct rs_mr *range = recv_exposure_one_sided_range(m->exposure);
	struct rs_error err = {0};
	if (rs_mw_new(m->peer, &m->whole_window, &err) ||
	    rs_mw_bind_now(conn, m->whole_window, range, 0, t->end - t->start,
			   method->pool_access, WHOLE_WINDOW_BIND_MS, &err)) {
		rs_err("sender %s: %s", m->who, err.msg);
		rs_mw_delete(&m->whole_window);
		return false;
	}
	return true;
}

int recv_sender_memory_describe(struct recv_sender_memory *m,
				struct rs_conn *conn,
				struct rs_accept_info *info)
{
	struct recv_exposure *e = m->exposure;
	recv_exposure_describe(e, info);
	/* A writer is shown the one method both sides pick, with keys of its
	 * own; a reader none (describe_read). */
	const struct recv_method *method = recv_sender_memory_method(m);
	info->methods = method ? (uint8_t)RS_METHOD_BIT(method->id) : 0;
	if (m->took != RS_METHOD_STAGED)
		info->staging = (struct rs_mr_desc){0};
	struct rs_error err = {0};
	bool whole_window = whole_windowed(m);
	if (method && recv_writer_keys_take(m->peer, m->log->target, method,
					    windowed(m) || whole_window,
					    &m->keys, &err)) {
		rs_err("sender %s: %s", m->who, err.msg);
		return err.code;
	}
	recv_writer_keys_describe(&m->keys, info);
	if (whole_window && !m->whole_window &&
	    !bind_whole_window(m, conn, method))
		return RS_E_PROVIDER;
	if (whole_window)
		info->data =
		    rs_mw_describe(m->whole_window, RS_MR_USAGE_WRITE_DST);
	if (is_reader(m)) {
		register_read_prefix(m, info->write_offset_value);
		describe_read(m, info);
	} else if (windowed(m))
		describe_windows(info);
	return 0;
}

bool recv_sender_memory_prefix_ends(struct recv_sender_memory *m)
{
	if (!m->read_mr || m->log->target->rewinds == m->read_rewinds)
		return false;
	rs_mr_dereg(&m->read_mr);
	rs_verbose("reader %s: its key to the pool's committed prefix ends: "
		   "the pool went back since its grant, it reads through its "
		   "ring from now on",
		   m->who);
	return true;
}

/* Its two windows, at its first request for a key: after its queue pair,
 * so that a receiver killed with windows bound has them taken down before
 * the queue pair (the kernel cleans up the newest first; rxe waits forever
 * for a queue pair a bound window holds). */
static int windows_of(struct recv_sender_memory *m)
{
	if (m->windows)
		return 0;
	struct rs_error err = {0};
	struct recv_exposure *e = m->exposure;
	struct recv_write_windows_config cfg = recv_exposure_windows_config(e);
	int rc = recv_write_windows_new(recv_exposure_peer(e), &cfg,
					&m->windows, &err);
	if (rc)
		rs_err("sender %s: %s", m->who, err.msg);
	return rc;
}

int recv_sender_memory_window(struct recv_sender_memory *m, struct rs_conn *c,
			      uint64_t head, uint64_t need, bool reset,
			      struct recv_window_binding *b)
{
	struct rs_error err = {0};
	int rc = windows_of(m);
	if (rc)
		return rc;
	rc = reset
		 ? recv_write_windows_reset(m->windows, c, head, need, b, &err)
		 : recv_write_windows_move(m->windows, c, head, need, b, &err);
	if (rc && err.msg[0])
		rs_err("sender %s: %s", m->who, err.msg);
	return rc;
}

void recv_sender_memory_say_reach(const struct recv_sender_memory *m,
				  uint64_t bytes_max, uint64_t ns_max)
{
	bool bounded = recv_exposure_windows_bounded(m->exposure);
	rs_verbose("sender %s: its windows moved past what it committed within "
		   "%llu bytes and %.1f ms at most%s",
		   m->who, (unsigned long long)bytes_max, (double)ns_max / 1e6,
		   bounded
		       ? ""
		       : " (counted from the start of a window's region: "
			 "this device keeps a window to the region under it)");
}

void recv_sender_memory_drop_windows(struct recv_sender_memory *m)
{
	recv_write_windows_delete(&m->windows);
	rs_mw_delete(&m->whole_window);
}

unsigned recv_sender_memory_qp_access(const struct recv_sender_memory *m)
{
	const struct recv_method *method = recv_sender_memory_method(m);
	if (is_reader(m))
		return RS_MR_REMOTE_READ;
	return method ? method->qp_access : 0;
}

void recv_sender_memory_drop_keys(struct recv_sender_memory *m, bool refill)
{
	recv_writer_keys_drop(&m->keys);
	m->refill = refill;
}

void recv_sender_memory_release(struct recv_sender_memory *m)
{
	recv_writer_keys_drop(&m->keys); /* a session never granted */
	rs_mr_dereg(&m->read_mr);
	rs_mr_dereg(&m->read_ring_mr);
	free(m->read_ring);
	m->read_ring = 0;
	if (m->owns_peer)
		recv_exposure_drop_own_peer(m->exposure, &m->peer,
					    m->refill && needs_whole_key(m));
	m->owns_peer = false;
	if (m->took != RS_METHOD_AUTO)
		recv_exposure_give_back(m->exposure, m->took);
	m->took = RS_METHOD_AUTO;
	if (m->device)
		m->device->holders--;
	m->device = 0;
}
