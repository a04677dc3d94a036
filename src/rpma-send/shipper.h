/* The shipper: connects to every replica of the stream (one receiver, or
 * several), agrees with each on a persistence method and streams the input
 * into their logs in batches, several in flight, each committed under the
 * commit rule on every replica (or --quorum of them) before it counts. A
 * replica that loses its link reconnects on its own clock (--retry) while
 * the others stream on, and is caught up from the ring. */
#ifndef SEND_SHIPPER_H
#define SEND_SHIPPER_H

#include "cli/endpoint.h"
#include "input.h"
#include "progress.h"
#include "proto/auth.h"
#include "proto/method.h"
#include "stats.h"

#include <stdbool.h>
#include <stdint.h>

#define SHIP_DEPTH_MAX 64 /* --depth's bound */
/* The default window: batches for about this many bytes in flight, so that
 * small batches still fill the link (at least SHIP_DEPTH_MIN, at most what
 * the receiver allows). */
#define SHIP_DEPTH_AUTO 0
#define SHIP_INFLIGHT_BYTES (8u << 20)
#define SHIP_DEPTH_MIN 4

struct ship_config {
	struct rs_target remote; /* the first of targets */
	const struct rs_target *targets;
	unsigned ntargets;
	unsigned quorum;       /* replicas that must confirm a batch; 0: all */
	enum rs_method method; /* AUTO: the fastest the receiver allows */
	uint32_t batch_size;
	uint16_t depth; /* batches in flight, capped by the receiver, or AUTO */
	int flush_interval_ms;
	int connect_timeout_ms;
	bool truncate;
	bool busy_poll;			    /* --busy-poll */
	const struct rs_auth_key *auth_key; /* --auth-key, or NULL */
	bool expect_offset;	/* --resume: the log must end where checked */
	uint64_t expected_used; /* bytes the log then held */
	unsigned retries;	/* --retry: reconnect attempts per loss */
	bool progress;		/* --progress */
	bool progress_forced;	/* --progress=always */
};

/* One replica at the end of a stream. */
struct ship_replica_result {
	char label[RS_TARGET_LABEL_SIZE];
	enum rs_method method;
	const char *state;  /* active, lost, catching up, dropped */
	uint64_t committed; /* input bytes its log is known to hold */
	uint64_t lag;	    /* input bytes sent and not confirmed by it */
	struct send_stats stats;
};

struct ship_result {
	enum rs_method method; /* the first replica's */
	uint64_t committed;    /* input bytes committed under the rule */
	uint64_t first_offset; /* where they start, from the log's start */
	uint64_t log_used;     /* remote log bytes in use at the end */
	uint64_t log_size;
	struct send_stats stats;
	unsigned nreplicas;
	struct ship_replica_result replicas[RS_TARGETS_MAX];
};

/* Streams in to the receiver. Returns an exit code (exit_code.h); errors
 * are reported on stderr as they happen. */
int ship_run(const struct ship_config *cfg, struct send_input *in,
	     struct ship_result *result);

#endif
