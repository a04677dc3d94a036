/* What a log's worker is made of, shared by its two halves: the loop
 * (log_worker.c) and the admission of senders (log_admission.c). */
#ifndef RECV_LOG_WORKER_INTERNAL_H
#define RECV_LOG_WORKER_INTERNAL_H

#include "exposure.h"
#include "inbox.h"
#include "log_worker.h"
#include "pmem_target.h"
#include "rdma/spin.h"
#include "recv_session.h"

#include <pthread.h>
#include <stdatomic.h>

#define RECV_LOG_SESSIONS_MAX 64 /* connections of one log at once */

/* A connected sender: its connection and the session on top. */
struct active {
	struct active *next;
	struct rs_session *rs;
	struct recv_session s;
	struct rs_connect_req req;
	struct recv_log_rules rules;   /* as of its request */
	struct rs_session_token token; /* handed out with its grant */
	struct rs_mr *read_mr;	       /* the log, readable: verify only */
	uint8_t *read_ring;	    /* verify, where the pool cannot be read */
	struct rs_mr *read_ring_mr; /* directly: ranges are copied here */
	bool taken_over; /* its sender came back on a new connection */
	struct recv_log_worker *w;
};

struct recv_log_worker {
	struct recv_worker_config cfg;
	struct recv_counters *counters;
	struct rs_pmem_target target;
	struct recv_exposure exposure;
	bool exposed;
	struct recv_inbox inbox;
	struct active *sessions; /* every connected sender */
	unsigned nsessions;
	struct active *holder;	/* the writer; NULL when none */
	struct rs_spin spin;	/* how long the loop waits for work */
	uint64_t idle_since_ns; /* when it last found none, or 0 */
	pthread_t thread;
	atomic_bool retired; /* takes no new connections */
	atomic_bool stop;    /* end every session and the thread */
	atomic_bool done;    /* the thread has ended */
};

int64_t recv_now_ms(void);

/* A connection the service handed over: admitted or refused. */
void recv_log_admit(struct recv_log_worker *w, struct recv_handover *h);
/* Refuses a connection the service handed over. */
void recv_log_refuse(struct recv_log_worker *w, struct recv_handover *h,
		     uint8_t reason);
/* Ends a session: its queue pair is destroyed when this returns. */
void recv_log_session_end(struct recv_log_worker *w, struct active *a);

#endif
