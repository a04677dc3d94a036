#include "metrics/counters.h"

#include "proto/descriptor.h"

#include <stddef.h>

/* From 10 us (a commit to PMem by CPU flush) to 100 ms (msync of a page
 * cache file under load), roughly 1-2.5-5 per decade. */
const uint64_t recv_persist_bucket_ns[RECV_PERSIST_BUCKETS] = {
    10000,   25000,   50000,   100000,	 250000,    500000,
    1000000, 2500000, 5000000, 10000000, 100000000, UINT64_MAX};

static const char *const refusal_names[RECV_REFUSALS] = {
    [RECV_REFUSED_BUSY] = "busy",
    [RECV_REFUSED_VERSION] = "version",
    [RECV_REFUSED_BAD_REQUEST] = "bad_request",
    [RECV_REFUSED_METHOD] = "method",
    [RECV_REFUSED_NOT_ALLOWED] = "not_allowed",
    [RECV_REFUSED_INTERNAL] = "internal",
    [RECV_REFUSED_NO_SUCH_LOG] = "no_such_log",
    [RECV_REFUSED_LIMIT] = "max_senders",
    [RECV_REFUSED_AUTH] = "auth",
};

void recv_counters_committed(struct recv_log_counters *c, uint64_t bytes,
			     uint64_t persist_ns)
{
	size_t b = 0;
	while (persist_ns > recv_persist_bucket_ns[b])
		b++;
	atomic_fetch_add_explicit(&c->persist_in[b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->persist_ns, persist_ns,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&c->committed_bytes, bytes,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&c->commits, 1, memory_order_relaxed);
}

void recv_counters_committed_alone(struct recv_log_counters *c, uint64_t bytes)
{
	atomic_fetch_add_explicit(&c->committed_bytes, bytes,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&c->commits, 1, memory_order_relaxed);
}

void recv_counters_refused(struct recv_log_counters *c, enum recv_refusal r)
{
	atomic_fetch_add_explicit(&c->refused[r], 1, memory_order_relaxed);
}

void recv_counters_offset_put_back(struct recv_log_counters *c)
{
	atomic_fetch_add_explicit(&c->offsets_put_back, 1,
				  memory_order_relaxed);
}

void recv_counters_connected(struct recv_log_counters *c)
{
	atomic_fetch_add(&c->senders, 1);
}

void recv_counters_disconnected(struct recv_log_counters *c)
{
	atomic_fetch_sub(&c->senders, 1);
}

void recv_counters_read(const struct recv_log_counters *c,
			struct recv_log_counts *out)
{
	out->committed_bytes = atomic_load(&c->committed_bytes);
	out->commits = atomic_load(&c->commits);
	out->persist_ns = atomic_load(&c->persist_ns);
	for (size_t i = 0; i < RECV_PERSIST_BUCKETS; i++)
		out->persist_in[i] = atomic_load(&c->persist_in[i]);
	for (size_t i = 0; i < RECV_REFUSALS; i++)
		out->refused[i] = atomic_load(&c->refused[i]);
	out->offsets_put_back = atomic_load(&c->offsets_put_back);
	out->senders = atomic_load(&c->senders);
}

enum recv_refusal recv_refusal_of(uint8_t reject_reason)
{
	switch (reject_reason) {
	case RS_REJECT_BUSY:
	case RS_REJECT_STOPPING: /* retried by the sender, as busy */
	case RS_REJECT_STARTING:
		return RECV_REFUSED_BUSY;
	case RS_REJECT_VERSION:
		return RECV_REFUSED_VERSION;
	case RS_REJECT_BAD_REQUEST:
		return RECV_REFUSED_BAD_REQUEST;
	case RS_REJECT_METHOD:
		return RECV_REFUSED_METHOD;
	case RS_REJECT_NOT_ALLOWED:
		return RECV_REFUSED_NOT_ALLOWED;
	case RS_REJECT_NO_SUCH_LOG:
	case RS_REJECT_NAME_NEEDED:
		return RECV_REFUSED_NO_SUCH_LOG;
	case RS_REJECT_LIMIT:
		return RECV_REFUSED_LIMIT;
	default:
		return RECV_REFUSED_INTERNAL;
	}
}

const char *recv_refusal_name(enum recv_refusal r)
{
	return (unsigned)r < RECV_REFUSALS ? refusal_names[r] : "unknown";
}
