/* Every connection request answered at once: one that its log's thread
 * has not taken within RECV_ANSWER_MS (it is busy with other logs' commits,
 * or a rebase of that log is under way) is refused as busy, with a hint of
 * when to ask again, which rpma-send honours without a word. A sender
 * never waits for its connect timeout, and a request is never taken after
 * its sender gave up on it. */
#include "service/internal.h"

#include <stdlib.h>

#define RECV_RETRY_MIN_MS 100
#define RECV_RETRY_MAX_MS 5000

uint16_t recv_service_busy_retry_ms(const struct service *svc)
{
	unsigned waiting = atomic_load(&svc->counters.waiting);
	unsigned cost_us = atomic_load(&svc->counters.admit_us);
	unsigned threads = recv_threads_count(svc->threads);
	uint64_t ms =
	    (uint64_t)waiting * cost_us / 1000 / (threads ? threads : 1);
	if (ms < RECV_RETRY_MIN_MS)
		ms = RECV_RETRY_MIN_MS;
	/* Spread over half as much again. */
	ms += (uint64_t)random() % (ms / 2 + 1);
	return ms > RECV_RETRY_MAX_MS ? RECV_RETRY_MAX_MS : (uint16_t)ms;
}

void recv_service_answer_late(struct service *svc, uint64_t now_ns)
{
	uint64_t late = (uint64_t)RECV_ANSWER_MS * 1000000ull;
	if (!atomic_load(&svc->counters.waiting) || now_ns < late)
		return;
	for (struct served_log *l = svc->logs; l; l = l->next)
		recv_log_worker_answer_late(l->worker, now_ns - late,
					    recv_service_busy_retry_ms(svc));
}
