#include "peer.h"

#include <errno.h>
#include <string.h>

int rs_peer_new(struct rs_peer *peer, struct ibv_context *verbs)
{
	memset(peer, 0, sizeof(*peer));
	peer->verbs = verbs;
	peer->pd = ibv_alloc_pd(verbs);
	if (!peer->pd)
		return errno ? errno : ENOMEM;

	struct ibv_device_attr_ex attr;
	memset(&attr, 0, sizeof(attr));
	if (ibv_query_device_ex(verbs, NULL, &attr) == 0) {
		const uint32_t need =
		    IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ;
		peer->odp_rc_write_read =
		    (attr.odp_caps.general_caps & IBV_ODP_SUPPORT) &&
		    (attr.odp_caps.per_transport_caps.rc_odp_caps & need) ==
			need;
	}
	return 0;
}

void rs_peer_delete(struct rs_peer *peer)
{
	if (peer->pd)
		ibv_dealloc_pd(peer->pd);
	peer->pd = 0;
}
