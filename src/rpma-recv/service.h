/* The receiver's service loop: listen, check each connection request,
 * admit one sender at a time as a session and drive it with the events of
 * its connection, refuse a second concurrent sender as busy. */
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
};

/* Set by SIGINT/SIGTERM: finish the commit in progress, then exit. */
extern volatile sig_atomic_t recv_stop_requested;

/* Runs until stopped; returns the process exit code. */
int recv_service_run(const struct recv_config *cfg);

#endif
