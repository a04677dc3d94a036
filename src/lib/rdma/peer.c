#include "rdma/peer.h"

#include "error.h"
#include "rdma/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool odp_rc_write_read(struct ibv_context *verbs)
{
	struct ibv_device_attr_ex attr;
	memset(&attr, 0, sizeof(attr));
	if (ibv_query_device_ex(verbs, NULL, &attr))
		return false;
	const uint32_t need = IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;
	return (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
	       (attr.odp_caps.per_transport_caps.rc_odp_caps & need) == need;
}

/* device_cap_flags_ex bits (rdma/ib_user_verbs.h since rdma-core 45) */
#define RS_DEVICE_FLUSH_PERSISTENT (1ull << 39)
#define RS_DEVICE_ATOMIC_WRITE (1ull << 40)

static bool flush_ops(struct ibv_context *verbs)
{
#ifdef RS_HAVE_IBV_FLUSH
	struct ibv_device_attr_ex attr;
	memset(&attr, 0, sizeof(attr));
	if (ibv_query_device_ex(verbs, NULL, &attr))
		return false;
	const uint64_t need =
	    RS_DEVICE_FLUSH_PERSISTENT | RS_DEVICE_ATOMIC_WRITE;
	return (attr.device_cap_flags_ex & need) == need;
#else
	(void)verbs;
	return false;
#endif
}

bool rs_peer_can_flush(const struct rs_peer *peer, const char **why_not)
{
#ifndef RS_HAVE_IBV_FLUSH
	(void)peer;
	if (why_not)
		*why_not = RS_NO_FLUSH_BUILD;
	return false;
#else
	if (!peer->flush_ops && why_not)
		*why_not = "the RDMA device does not do RDMA FLUSH to "
			   "persistence and ATOMIC WRITE (IBTA 1.5; Soft-RoCE "
			   "has them from kernel 6.2 on)";
	return peer->flush_ops;
#endif
}

static int peer_on(struct ibv_context *verbs, struct rs_peer **peer,
		   struct rs_error *err)
{
	struct rs_peer *p = calloc(1, sizeof(*p));
	if (!p)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	p->verbs = verbs;
	p->pd = ibv_alloc_pd(p->verbs);
	if (!p->pd) {
		int e = errno ? errno : ENOMEM;
		free(p);
		return rs_error_set(err, RS_E_PROVIDER, e,
				    "cannot allocate a protection domain: %s",
				    strerror(e));
	}
	p->odp_rc_write_read = odp_rc_write_read(p->verbs);
	p->flush_ops = flush_ops(p->verbs);
	*peer = p;
	return 0;
}

int rs_peer_new(const struct rs_conn *conn, struct rs_peer **peer,
		struct rs_error *err)
{
	return peer_on(conn->id->verbs, peer, err);
}

int rs_peer_new_like(const struct rs_peer *like, struct rs_peer **peer,
		     struct rs_error *err)
{
	return peer_on(like->verbs, peer, err);
}

int rs_peer_delete(struct rs_peer **peer)
{
	if (!*peer)
		return 0;
	/* EBUSY: something is still registered on it, or a queue pair or a
	 * window still lives there. Freeing the struct then would leave them
	 * on a protection domain no one can free or reach. */
	int rc = ibv_dealloc_pd((*peer)->pd);
	if (rc)
		return rc;
	free(*peer);
	*peer = 0;
	return 0;
}

bool rs_peer_serves(const struct rs_peer *peer, const struct rs_conn *conn)
{
	return peer && conn->id && peer->verbs == conn->id->verbs;
}
