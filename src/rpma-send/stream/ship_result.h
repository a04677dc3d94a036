/* What a stream did, for the summary and --stats: filled in by the fleet
 * that ran it, printed by the program. */
#ifndef SEND_SHIP_RESULT_H
#define SEND_SHIP_RESULT_H

#include "cli/endpoint.h"
#include "common/stats.h"
#include "proto/method.h"

#include <stdint.h>

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

#endif
