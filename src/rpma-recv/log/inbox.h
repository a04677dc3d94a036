/* Connection requests on their way from the service's listener thread to
 * the thread of the log they asked for: a locked queue, and a descriptor
 * that polls readable while it is not empty, so the log's thread waits on
 * it with everything else. */
#ifndef RECV_INBOX_H
#define RECV_INBOX_H

#include "log/config.h"
#include "log/seats.h"

#include <pthread.h>
#include <stdbool.h>

struct recv_handover {
	struct recv_handover *next;
	struct rs_conn *conn;
	struct rs_connect_req req;
	char peer[64];
	struct recv_log_rules rules;
	struct recv_seat seat; /* its seat under max-senders, if it has one */
	uint64_t asked_ns;     /* when the service handed it over */
};

struct recv_inbox {
	pthread_mutex_t lock;
	struct recv_handover *head, **tail;
	int fd; /* an eventfd: readable while something is queued */
};

int recv_inbox_init(struct recv_inbox *in);
void recv_inbox_fini(struct recv_inbox *in);

/* Queues h (malloc'd; the inbox owns it now) and wakes the reader. */
void recv_inbox_push(struct recv_inbox *in, struct recv_handover *h);
/* Makes the descriptor readable, so the reader looks (at a flag). */
void recv_inbox_wake(struct recv_inbox *in);
/* The oldest request, or NULL; the caller frees it. */
struct recv_handover *recv_inbox_pop(struct recv_inbox *in);
/* The oldest request if it was handed over before before_ns, or NULL. */
struct recv_handover *recv_inbox_pop_older(struct recv_inbox *in,
					   uint64_t before_ns);
/* Whether requests wait. */
bool recv_inbox_waiting(struct recv_inbox *in);
/* The descriptor quiet again while requests wait (their reader takes them
 * later, and wakes itself then): level-triggered, it would keep its
 * reader awake meanwhile. */
void recv_inbox_hush(struct recv_inbox *in);

#endif
