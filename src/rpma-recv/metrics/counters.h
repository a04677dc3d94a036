/* What the receiver has done with one log, for operators: bytes and batches
 * committed, how long each commit took to persist (a histogram), senders
 * connected now and refused by reason. The one home of the receiver's
 * counters: the log's thread and the service's routing add to them
 * (atomics, no lock), the service reads them for the status line and the
 * metrics file (metrics/metrics.h), --info shows them for a served log. A new
 * counter is a field here, one call where it happens, one line in
 * metrics/metrics.c. */
#ifndef RECV_COUNTERS_H
#define RECV_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

/* Why a sender was refused (the connect request's reject reasons, and a
 * wrong or missing answer to the auth challenge). */
enum recv_refusal {
	RECV_REFUSED_BUSY,	  /* another sender writes the log */
	RECV_REFUSED_VERSION,	  /* a protocol version not understood */
	RECV_REFUSED_BAD_REQUEST, /* a malformed request */
	RECV_REFUSED_METHOD,	  /* a persistence method not offered */
	RECV_REFUSED_NOT_ALLOWED, /* not in the log's allow list */
	RECV_REFUSED_INTERNAL,	  /* the receiver could not set it up */
	RECV_REFUSED_NO_SUCH_LOG, /* no log of that name, or none named */
	RECV_REFUSED_LIMIT,	  /* max-senders reached */
	RECV_REFUSED_AUTH,	  /* the auth key not proved */
	RECV_REFUSALS
};

/* Upper bounds of the persist-time buckets, in ns; the last has none. */
#define RECV_PERSIST_BUCKETS 12
extern const uint64_t recv_persist_bucket_ns[RECV_PERSIST_BUCKETS];

struct recv_log_counters {
	atomic_uint_fast64_t committed_bytes;
	atomic_uint_fast64_t commits;
	atomic_uint_fast64_t persist_ns; /* their persist times, summed */
	atomic_uint_fast64_t persist_in[RECV_PERSIST_BUCKETS];
	atomic_uint_fast64_t refused[RECV_REFUSALS];
	/* write offsets a one-sided writer stored that broke a rule
	 * (pool/offset_rule.h): put back, its session ended */
	atomic_uint_fast64_t offsets_put_back;
	atomic_uint senders; /* connected now, verifiers included */
};

/* The same, read at one moment (each count on its own). */
struct recv_log_counts {
	uint64_t committed_bytes, commits, persist_ns;
	uint64_t persist_in[RECV_PERSIST_BUCKETS];
	uint64_t refused[RECV_REFUSALS];
	uint64_t offsets_put_back;
	unsigned senders;
};

/* Bytes a writer that commits alone (apm, flush) committed, seen in the
 * log's write offset: a commit, with no persist time of the receiver's. */
void recv_counters_committed_alone(struct recv_log_counters *c, uint64_t bytes);
/* A batch of bytes committed, persistent after persist_ns. */
void recv_counters_committed(struct recv_log_counters *c, uint64_t bytes,
			     uint64_t persist_ns);
void recv_counters_refused(struct recv_log_counters *c, enum recv_refusal r);
/* A write offset a one-sided writer stored broke a rule and was put back. */
void recv_counters_offset_put_back(struct recv_log_counters *c);
void recv_counters_connected(struct recv_log_counters *c);
void recv_counters_disconnected(struct recv_log_counters *c);
void recv_counters_read(const struct recv_log_counters *c,
			struct recv_log_counts *out);

/* The refusal a connect request's reject reason (RS_REJECT_*) stands for. */
enum recv_refusal recv_refusal_of(uint8_t reject_reason);
/* Its name in the metrics file and in --info: "busy", "not_allowed"... */
const char *recv_refusal_name(enum recv_refusal r);

#endif
