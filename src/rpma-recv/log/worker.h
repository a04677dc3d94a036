/* A served log: it holds the pool open, exposes it on the RDMA device its
 * senders come in on, and drives the sessions of every sender the service
 * hands it (one writer at a time, any number of verifiers) with their
 * completions, connection events and timers. One of the service's threads
 * (log/threads.h) gives it every turn, so a log's sessions are never
 * served by two threads at once; a log has its own pool, staging ring and
 * sessions, and a thread serves many logs.
 *
 * A writer holds the log; another writer is refused as busy unless it
 * presents the holder's session token: then it is the same sender, back
 * on a new connection, and its old session ends before the new one is
 * granted. */
#ifndef RECV_LOG_WORKER_H
#define RECV_LOG_WORKER_H

#include "log/config.h"
#include "log/seats.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_conn;
struct rs_error;
struct recv_log_worker;
struct recv_threads;

/* Opens the pool (creating it when asked) and gives the log to one of
 * threads. Returns 0 or a negative rs_errc with the reason in err. */
int recv_log_worker_start(const struct recv_worker_config *cfg,
			  struct recv_counters *counters,
			  struct recv_threads *threads,
			  struct recv_log_worker **w, struct rs_error *err);

/* What the log's receiver has done (metrics/counters.h): its thread adds to
 * them, the service reads them and counts what it refuses before hand-over. */
struct recv_log_counters *recv_log_worker_counters(struct recv_log_worker *w);

/* Hands a checked connection request to the worker, which admits or
 * refuses it. With a seat taken (log/seats.h) the caller has counted it in
 * the log's counters as connected too. */
void recv_log_worker_hand_over(struct recv_log_worker *w, struct rs_conn *conn,
			       const struct rs_connect_req *req,
			       const char *peer,
			       const struct recv_log_rules *rules,
			       enum recv_seat_claim claim);
/* Refuses, as busy and to ask again in retry_ms, every request handed
 * over before before_ns that its thread has not taken yet (from the
 * service's thread: a sender waits for an answer, not for the log's
 * thread). How many. */
unsigned recv_log_worker_answer_late(struct recv_log_worker *w,
				     uint64_t before_ns, uint16_t retry_ms);
/* Whether token is the one the log's writer holds now. */
bool recv_log_worker_holds(struct recv_log_worker *w,
			   const struct rs_session_token *token);

/* No new connections: its thread lets go of it once its sessions have
 * ended. */
void recv_log_worker_retire(struct recv_log_worker *w);
/* True once its thread let go of a retired log. */
bool recv_log_worker_done(struct recv_log_worker *w);

/* Ends every session (its thread does, and lets go of it), then closes the
 * pool. */
void recv_log_worker_stop(struct recv_log_worker **w);

const struct recv_worker_config *
recv_log_worker_config(const struct recv_log_worker *w);
/* The pool's size and use, and what rotation moved out of it: safe from
 * the service's thread. */
struct recv_log_usage {
	uint64_t size, used; /* the pool's data range, its committed bytes */
	uint64_t rotated;    /* the log position of the pool's first byte */
	uint64_t archived;   /* bytes in the archive's files */
	unsigned archive_files;
};
void recv_log_worker_usage(const struct recv_log_worker *w,
			   struct recv_log_usage *u);

#endif
