/* The shipper: connects to every replica of the stream (one receiver, or
 * several), agrees with each on a persistence method and streams the input
 * into their logs in batches, several in flight, each committed under the
 * commit rule on every replica (or --quorum of them) before it counts. A
 * replica that loses its link reconnects on its own clock (--retry) while
 * the others stream on, and is caught up from the ring. */
#ifndef SEND_SHIPPER_H
#define SEND_SHIPPER_H

#include "common/send_config.h"
#include "input/input.h"
#include "stream/ship_result.h"

/* Streams in to the receiver. Returns 0 or a negative enum rs_errc
 * (RS_E_FULL: the log is full, the input had more); errors are reported
 * on stderr as they happen. */
int ship_run(const struct ship_config *cfg, struct send_input *in,
	     struct ship_result *result);

#endif
