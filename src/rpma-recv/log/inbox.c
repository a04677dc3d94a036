#include "log/inbox.h"

#include "error.h"

#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

int recv_inbox_init(struct recv_inbox *in)
{
	in->head = 0;
	in->tail = &in->head;
	in->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (in->fd < 0)
		return RS_E_NOMEM; /* out of descriptors or memory */
	pthread_mutex_init(&in->lock, 0);
	return 0;
}

void recv_inbox_fini(struct recv_inbox *in)
{
	struct recv_handover *h;
	while ((h = recv_inbox_pop(in)))
		free(h);
	pthread_mutex_destroy(&in->lock);
	close(in->fd);
}

void recv_inbox_push(struct recv_inbox *in, struct recv_handover *h)
{
	h->next = 0;
	pthread_mutex_lock(&in->lock);
	*in->tail = h;
	in->tail = &h->next;
	pthread_mutex_unlock(&in->lock);
	recv_inbox_wake(in);
}

void recv_inbox_wake(struct recv_inbox *in)
{
	uint64_t one = 1;
	(void)!write(in->fd, &one, sizeof(one));
}

struct recv_handover *recv_inbox_pop(struct recv_inbox *in)
{
	pthread_mutex_lock(&in->lock);
	struct recv_handover *h = in->head;
	if (h) {
		in->head = h->next;
		if (!in->head)
			in->tail = &in->head;
	} else {
		/* Empty: clear the wake-up, under the lock so a push that
		 * comes after it sets it again. */
		uint64_t n;
		(void)!read(in->fd, &n, sizeof(n));
	}
	pthread_mutex_unlock(&in->lock);
	return h;
}

struct recv_handover *recv_inbox_pop_older(struct recv_inbox *in,
					   uint64_t before_ns)
{
	pthread_mutex_lock(&in->lock);
	struct recv_handover *h = in->head;
	if (h && h->asked_ns < before_ns) {
		in->head = h->next;
		if (!in->head)
			in->tail = &in->head;
	} else {
		h = 0;
	}
	pthread_mutex_unlock(&in->lock);
	return h;
}

bool recv_inbox_waiting(struct recv_inbox *in)
{
	pthread_mutex_lock(&in->lock);
	bool any = in->head != 0;
	pthread_mutex_unlock(&in->lock);
	return any;
}

void recv_inbox_hush(struct recv_inbox *in)
{
	uint64_t n;
	pthread_mutex_lock(&in->lock);
	(void)!read(in->fd, &n, sizeof(n));
	pthread_mutex_unlock(&in->lock);
}
