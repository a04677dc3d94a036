/* What a thread (log/threads.c) does with the logs it serves: give each its
 * turns when its descriptors say so, run its timers when due, spin on it
 * with --busy-poll, and let go of it when it is over. Nothing else
 * includes this: a log's turns come from its one thread only. */
#ifndef RECV_LOG_WORKER_RUN_H
#define RECV_LOG_WORKER_RUN_H

#include "log/worker.h"

struct rs_stall;

#include <stdbool.h>
#include <stdint.h>

/* The thread takes the log: it waits for its requests, completions and
 * connection events in epfd (epoll; data.ptr is inbox_owner for its
 * requests, owner for the rest); stall is how long that thread could not
 * run, which counts as no sender's silence. */
void recv_log_worker_attach(struct recv_log_worker *w, int epfd, void *owner,
			    void *inbox_owner, const struct rs_stall *stall);
/* Takes the requests handed over (none while a rebase is under way): the
 * thread does this first, before other turns. */
void recv_log_worker_admit(struct recv_log_worker *w);

/* One turn: requests handed over, each session's completions (a bounded
 * number: fairness) and connection events, sessions that closed. True
 * when there was work: another turn may find more. */
bool recv_log_worker_turn(struct recv_log_worker *w, uint64_t now_ns);
/* Its sessions' timers, when due at now_ns; returns when they are due next
 * (soon while a reader waits for a writer that commits alone). */
uint64_t recv_log_worker_timers(struct recv_log_worker *w, uint64_t now_ns);
uint64_t recv_log_worker_timers_due(const struct recv_log_worker *w);

/* Whether it has sessions (a completion may come). */
bool recv_log_worker_serving(const struct recv_log_worker *w);
/* --busy-poll with a session that sends messages: spin, do not sleep. */
bool recv_log_worker_spins(const struct recv_log_worker *w);
/* One look at each session's completion queue, no system call: true when
 * a completion came (taken). */
bool recv_log_worker_poll(struct recv_log_worker *w);

/* Stopped, or retired with no session left: to be let go of. */
bool recv_log_worker_over(const struct recv_log_worker *w);
/* Refuses what waits in its inbox, ends its sessions and marks it done:
 * the thread must not touch it afterwards (the service frees it). */
void recv_log_worker_finish(struct recv_log_worker *w);

#endif
