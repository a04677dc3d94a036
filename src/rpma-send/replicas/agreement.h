/* The replicas a stream starts on must hold the same committed log: the
 * same length and, when not empty, the same bytes (compared by the
 * receivers' own hashes of their logs, nothing read back). Else one batch
 * would land at different places in different logs, and no replica could
 * stand in for another. */
#ifndef SEND_AGREEMENT_H
#define SEND_AGREEMENT_H

#include "replicas/replica.h"

/* Checks n connected replicas. Returns 0, RS_E_DIVERGED after one line
 * per replica saying what it holds when they differ, or what reading a
 * digest failed with (reported). */
int agreement_check(struct replica *const *replicas, unsigned n,
		    const struct ship_config *cfg);

#endif
