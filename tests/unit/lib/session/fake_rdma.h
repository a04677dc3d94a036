/* A fake of src/lib/rdma for host tests of the layer above it (session/),
 * as librpma's unit tests fake the module under the one they test: no
 * device, no rdma_cm. It does what the test scripts: the peer accepts or
 * rejects each connect request with the private data set, and sends the
 * messages queued, each into the oldest receive posted, as a queue pair
 * does. It records what was posted, and counts what is alive so that a test
 * can check that nothing leaked. One connection at a time. */
#ifndef TEST_FAKE_RDMA_H
#define TEST_FAKE_RDMA_H

#include "rdma/conn.h"

#include <stdbool.h>
#include <stdint.h>

#define FAKE_QUEUE_MAX 16

/* A send or receive posted. */
struct fake_post {
	struct rs_mr *mr;
	size_t offset;
	uint32_t len;
	uint64_t wr_id;
	unsigned flags;
	uint8_t bytes[256]; /* a send's, as posted */
};

/* What the peer answers to a connect request: 0 accepts, RS_E_REJECTED
 * rejects (both with data), another rs_errc fails the connect. */
struct fake_answer {
	int rc;
	struct rs_private_data data;
};

struct fake_rdma {
	/* Set by the test. */
	struct fake_answer answers[2]; /* to each connect request in turn */
	struct rs_private_data incoming[4]; /* messages the peer sends */
	unsigned nincoming;
	const char *flush_why_not; /* NULL: a connection can flush */
	int create_qp_rc;
	/* Recorded. */
	unsigned connects;
	struct rs_private_data requests[2]; /* each connect request's data */
	bool accepted, rejected;
	struct rs_private_data accept_data, reject_data;
	unsigned access; /* what the peer may do through the queue pair */
	bool busy_poll, quiet_sends;
	struct fake_post sends[FAKE_QUEUE_MAX];
	unsigned nsends, sends_completed;
	struct fake_post recvs[FAKE_QUEUE_MAX]; /* posted, not yet taken */
	unsigned nrecvs, delivered;
	int conns, peers, mrs; /* alive */
};

extern struct fake_rdma fake;

/* Nothing done, nothing scripted (for each test). */
void fake_rdma_reset(void);
/* A connection request, as a listener hands it over to the receiver. */
struct rs_conn *fake_conn_incoming(void);

#endif
