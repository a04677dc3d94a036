/* A fake RDMA device under src/lib/rdma, at the verbs: the calls
 * libibverbs inlines go through the device context's ops (post, poll,
 * windows), as the real inline functions call them; the others are
 * wrapped at link time (-Wl,--wrap=ibv_reg_mr and the rest, as librpma's
 * mocks do: tests/unit/CMakeLists.txt lists them), so that the library's
 * own objects call this fake instead of the device. It records what was
 * posted and registered and answers what the test queues. One device, one
 * queue pair; rdma_cm's event channels and ids as a listener uses them
 * (each channel's descriptor a real eventfd, so that poll(2) works), one
 * fake at a time. */
#ifndef TEST_FAKE_VERBS_H
#define TEST_FAKE_VERBS_H

#include "rdma/internal.h"

#include <infiniband/verbs.h>
#include <stdbool.h>

#define FAKE_MAX 64

struct fake_verbs {
	struct ibv_context ctx;
	struct ibv_pd pd;
	struct ibv_qp qp;
	struct ibv_cq cq, send_cq;
	struct rdma_cm_id id;
	/* each doorbell (post call) and the requests it carried, copied */
	unsigned doorbells;
	struct ibv_send_wr sent[FAKE_MAX];
	struct ibv_sge sent_sge[FAKE_MAX];
	unsigned nsent;
	int post_fails; /* what the next post returns */
	/* a signaled binding posted is done at once: its completion waits
	 * in send_wc (where the device binds on a thread of its own) */
	bool binds_complete;
	/* completions waiting in each queue, first first */
	struct ibv_wc cq_wc[FAKE_MAX], send_wc[FAKE_MAX];
	unsigned ncq, nsend;
	int poll_fails; /* what polling returns when set (< 0) */
	/* the device: what ibv_query_device says (query_fails: its error) */
	struct ibv_device_attr attr;
	int query_fails;
	/* protection domains beyond pd: the errno an allocation fails with
	 * (0: it succeeds), what freeing one returns (EBUSY: something is
	 * still on it), how many live */
	struct ibv_pd pds[FAKE_MAX];
	int alloc_pd_errno, dealloc_pd_rc;
	unsigned npds, pds_alive;
	/* memory windows: allocation (alloc_errno: it fails so), alive */
	struct ibv_mw mw;
	int alloc_errno;
	enum ibv_mw_type mw_type;
	unsigned mws;
	/* registrations: the errno of each next one that fails, first
	 * first, then they succeed; the flags each asked for; alive */
	int reg_errno[4];
	unsigned nreg_fail;
	int reg_flags[FAKE_MAX];
	unsigned nreg;
	struct ibv_mr mrs[FAKE_MAX];
	unsigned mrs_alive;
	/* rdma_cm: the errno of each next channel that cannot be made,
	 * first first; channels and ids alive; the errno a call fails with
	 * (0: it succeeds); the events queued, delivered in order on any
	 * channel (each counted on the first channel's descriptor); what was
	 * done with requests */
	int channel_errno[4];
	unsigned nchannel_fail;
	unsigned channels, ids;
	int create_id_errno, getaddrinfo_errno, bind_errno, listen_errno,
	    migrate_errno;
	struct rdma_event_channel *first_channel;
	struct rdma_cm_event events[FAKE_MAX];
	unsigned nevents, acked, migrated, rejected;
	/* the private data of the last refusal */
	uint8_t reject_priv[UINT8_MAX];
	uint8_t reject_len;
	/* what rdma_init_qp_attr fails with (0: it succeeds): EINVAL for a
	 * request whose sender gave up on it */
	int init_qp_attr_errno;
	/* what rdma_create_qp fails with (0: it succeeds, unless
	 * init_qp_attr_errno is set: librdmacm asks rdma_cm the queue pair's
	 * attributes first), and whether the request's sender withdraws it
	 * while its queue pair is made, or once it is made, before the
	 * accept (init_qp_attr_errno becomes EINVAL then) */
	int create_qp_errno;
	bool withdraw_at_create_qp, withdraw_after_create_qp;
	/* an accepted connection's queues (each made and destroyed by the
	 * library, counted here), its receives posted, and the private data
	 * of the last accept; disconnects asked for */
	unsigned comp_channels, cqs, qps, recvs_posted, accepted, disconnected;
	uint8_t accept_priv[UINT8_MAX];
	uint8_t accept_len;
	/* a region and a connection on the queue pair, ready to use */
	struct ibv_mr mr;
	struct rs_mr rs_mr;
	struct rs_conn conn;
	struct rs_peer peer;
};

/* The fake, all wired (the conn on the queue pair, the peer on the pd),
 * the device able to bind type-2 windows. */
struct fake_verbs *fake_verbs_new(void);
void fake_verbs_delete(struct fake_verbs *f);

/* A sender's connect request with that private data, on a new id, queued
 * for the first channel made. */
void fake_cm_request(struct fake_verbs *f, const void *priv, uint8_t len);
/* An event of that type queued on the channel of a connection (a
 * request's sender disconnecting: RDMA_CM_EVENT_DISCONNECTED). */
void fake_cm_event(struct fake_verbs *f, struct rdma_event_channel *ch,
		   enum rdma_cm_event_type type);

#endif
