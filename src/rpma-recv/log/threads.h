/* The threads that serve the logs: a fixed set (the `workers` setting, one
 * per CPU core by default), each serving many logs in one loop that waits
 * on all their descriptors at once (epoll). A log is served by one thread
 * for its whole life, so its sessions, its order and its commit rule are
 * one thread's; an idle log costs its thread nothing but a look at its
 * timers now and then. */
#ifndef RECV_LOG_THREADS_H
#define RECV_LOG_THREADS_H

#include <stdbool.h>

struct rs_error;
struct recv_log_worker;
struct recv_threads;

/* One per CPU core online. */
unsigned recv_threads_default(void);

/* Starts n threads; busy_poll: --busy-poll (a thread spins on the logs
 * that have a session to spin for). 0 or a negative rs_errc. */
int recv_threads_start(unsigned n, bool busy_poll, struct recv_threads **out,
		       struct rs_error *err);
/* Gives w to the thread serving the fewest logs: it serves w from then on
 * until w is over (log/worker.h: stopped, or retired and idle). 0, or
 * RS_E_NOMEM. */
int recv_threads_attach(struct recv_threads *t, struct recv_log_worker *w);
unsigned recv_threads_count(const struct recv_threads *t);
/* Joins every thread; every log given to them must be stopped first. */
void recv_threads_stop(struct recv_threads **t);

#endif
