/* rpma-send --fetch: a log's committed content read back over RDMA into
 * a file or standard output, from where cfg->start says; with --follow it
 * goes on as the log grows, a wait parked at the receiver between rounds
 * (no polling: an idle log costs neither side anything), until SIGINT or
 * SIGTERM. Only committed bytes: each round reads up to the end the
 * receiver told, and bytes read straight from the pool are written only
 * once the log's state after the reads says they still stand (the pool
 * did not start over meanwhile). With --retry, a lost connection or a
 * restarted receiver is connected again and the read goes on at the next
 * byte: nothing skipped, nothing written twice. */
#ifndef SEND_FETCHER_H
#define SEND_FETCHER_H

#include "fetch/config.h"

#include <stdint.h>

/* Where the bytes go: write returns 0 or a negative rs_errc, reported. */
struct fetch_sink {
	void *ctx;
	int (*write)(void *ctx, const uint8_t *bytes, uint64_t len);
};

/* Writes the log's bytes to sink. 0 when done (--follow: stopped by a
 * signal), else a negative rs_errc, reported: RS_E_DIVERGED when the log
 * became another content (replaced, emptied) or no longer holds the next
 * byte, the sink's, RS_E_INTERRUPTED for a stop before the end (not
 * --follow), or the connection's. */
int fetch_run(const struct fetch_config *cfg, const struct fetch_sink *sink,
	      struct fetch_result *result);

#endif
