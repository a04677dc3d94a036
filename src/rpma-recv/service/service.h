/* The receiver as a service: one listener for every log. Each connection
 * request is checked here (decoded, its log found by name, the sender's
 * address against that log's allow list, the max-senders limit) and
 * handed to the thread of its log (log/worker.h), which admits or refuses
 * it and serves it. SIGHUP reloads the configuration: new logs appear,
 * removed ones take no new senders while their running sessions finish,
 * new access rules apply to new connections, and a broken file keeps the
 * old configuration. Under systemd it reports readiness and reloads. */
#ifndef RECV_SERVICE_H
#define RECV_SERVICE_H

#include "settings/settings.h"

#include <signal.h>
#include <stdbool.h>

struct rs_error;

/* Set by SIGINT/SIGTERM: finish the commits in progress, then exit. */
extern volatile sig_atomic_t recv_stop_requested;
/* Set by SIGHUP: read the configuration again. */
extern volatile sig_atomic_t recv_reload_requested;

/* Builds the settings anew (the file, then the command line over it), at
 * start and on each reload. */
struct recv_settings_source {
	void *ctx;
	int (*build)(void *ctx, struct recv_settings *s, struct rs_error *err);
};

/* Runs until stopped (or with once, until a sender was served); returns 0,
 * or the negative rs_errc a start failed with (reported). */
int recv_service_run(const struct recv_settings_source *source, bool once);

#endif
