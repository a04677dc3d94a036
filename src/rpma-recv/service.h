/* The receiver's service loop: listen, check each connection request,
 * admit senders as sessions and drive them with the events of their
 * connections. One sender holds the log; another is refused as busy unless
 * it is the same sender back on a new connection (its session token). */
#ifndef RECV_SERVICE_H
#define RECV_SERVICE_H

#include "cidr.h"
#include "cli/endpoint.h"
#include "exposure.h"
#include "proto/auth.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#define RECV_ALLOW_MAX 32

struct recv_config {
	const char *pool_path;
	uint64_t create_size; /* 0: the pool must exist */
	struct rs_endpoint listen;
	struct recv_exposure_config exposure;
	bool once;	/* exit after the first sender leaves */
	bool busy_poll; /* spin on the CQ instead of sleeping */
	struct rs_cidr allow[RECV_ALLOW_MAX]; /* --allow: who may connect */
	unsigned nallow;		      /* 0: anyone */
	const struct rs_auth_key *auth_key;   /* --auth-key, or NULL */
	uint32_t peer_timeout_ms; /* a silent sender's session ends after */
};

/* Set by SIGINT/SIGTERM: finish the commit in progress, then exit. */
extern volatile sig_atomic_t recv_stop_requested;

/* Runs until stopped; returns the process exit code. */
int recv_service_run(const struct recv_config *cfg);

#endif
