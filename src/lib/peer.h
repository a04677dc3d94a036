/* A peer: one RDMA device as seen by this process, with its protection
 * domain and what it can do (on-demand paging for RC reads and writes). */
#ifndef RS_PEER_H
#define RS_PEER_H

#include <infiniband/verbs.h>
#include <stdbool.h>

struct rs_peer {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	bool odp_rc_write_read; /* can register memory without pinning it */
	uint32_t max_inline_data;
};

/* Returns 0, or an errno value. */
int rs_peer_new(struct rs_peer *peer, struct ibv_context *verbs);
void rs_peer_delete(struct rs_peer *peer);

#endif
