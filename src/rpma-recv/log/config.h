/* What a log's worker is given by the service: how to serve its log, the
 * rules for one connection, and the counts it shares with the service. Both
 * halves of a log (its turns, the admission of senders) read it. */
#ifndef RECV_LOG_CONFIG_H
#define RECV_LOG_CONFIG_H

#include "proto/auth.h"
#include "proto/descriptor.h"
#include "reach/exposure.h"
#include "rotation/rotation.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* What applies to one connection, as the configuration stood when its
 * request came in (a reload changes it for later connections only). */
struct recv_log_rules {
	uint8_t methods; /* RS_METHOD_BIT() of each method the log allows */
	bool has_key;
	struct rs_auth_key key;
};

struct recv_worker_config {
	char name[RS_LOG_NAME_MAX + 1]; /* "" for `rpma-recv POOL` */
	char pool_path[PATH_MAX];
	uint64_t create_size;
	struct recv_exposure_config exposure;
	struct recv_rotation_config rotation;
	struct recv_archiver *archiver; /* the receiver's (NULL: none) */
	uint32_t peer_timeout_ms;
	bool busy_poll;
};

/* How long a connection request may wait for its log's thread: older,
 * it is refused as busy with a time to ask again (service/answering.c
 * from the service's thread, log/worker.c when the log's thread comes to
 * it late), so that every request is answered within about a second. */
#define RECV_ANSWER_MS 250

/* Counts shared by the service and every worker. */
struct recv_counters {
	atomic_uint senders;	 /* seats taken (log/seats.h) */
	atomic_uint max_senders; /* how many there are (the service sets it) */
	atomic_uint served;	 /* sessions that were served, then ended */
	atomic_uint waiting;	 /* requests handed over, not yet taken */
	atomic_uint admit_us; /* what taking one costs a log's thread, lately */
};

#endif
