/* Connection requests on their way from the service's listener thread to
 * the thread of the log they asked for: a locked queue, and a descriptor
 * that polls readable while it is not empty, so the log's thread waits on
 * it with everything else. */
#ifndef RECV_INBOX_H
#define RECV_INBOX_H

#include "log/config.h"

#include <pthread.h>

struct recv_handover {
	struct recv_handover *next;
	struct rs_conn *conn;
	struct rs_connect_req req;
	char peer[64];
	struct recv_log_rules rules;
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

#endif
