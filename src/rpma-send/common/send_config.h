/* What a stream is asked to do: the options that reach the layers below the
 * shipper (the fleet, each replica, the start agreement, resume), and the
 * bounds they share. A leaf: it includes nothing of the sender's, so any
 * module may take it without taking the shipper. */
#ifndef SEND_CONFIG_H
#define SEND_CONFIG_H

#include "cli/endpoint.h"
#include "proto/auth.h"
#include "proto/method.h"

#include <stdbool.h>
#include <stdint.h>

#define SEND_REPLICAS_MAX RS_TARGETS_MAX

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
	/* --follow: how long a stop signal leaves to read what the files
	 * hold (--stop-wait). */
	int stop_wait_ms;
	/* --truncate: replace the log, switched in once the whole input is
	 * committed (the old content kept until then); with in_place, rewind
	 * it first, as --truncate=in-place asks. */
	bool truncate;
	bool truncate_in_place;
	bool busy_poll;			    /* --busy-poll */
	const struct rs_auth_key *auth_key; /* --auth-key, or NULL */
	bool expect_offset;	/* --resume: the log must end where checked */
	uint64_t expected_used; /* bytes the log then held */
	unsigned retries;	/* --retry: reconnect attempts per loss */
	bool progress;		/* --progress */
	bool progress_forced;	/* --progress=always (or commits) */
	bool progress_commits;	/* --progress=commits: a line per commit */
};

#endif
