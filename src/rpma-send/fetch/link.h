/* The fetcher's connection: a reading session (RS_CONNECT_VERIFY) to one
 * log, asking where the log stands (WAIT) and reading rounds of chunks
 * into registered buffers: from the pool with RDMA reads where the grant
 * allows, else (and for the archive's bytes) through the receiver's ring
 * (READ_STAGE, then an RDMA read of the ring's slot). */
#ifndef SEND_FETCH_LINK_H
#define SEND_FETCH_LINK_H

#include "fetch/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fetch_link;

/* Connects (reported on failure: the code says whether trying again may
 * help, RS_ERRC_TRANSIENT) and sets up the buffers. */
int fetch_link_open(struct fetch_link **l, const struct fetch_config *cfg);
void fetch_link_close(struct fetch_link **l);

/* Where the log stands, now (wait false) or once it ends past pos (or a
 * while passed: the receiver answers within a quarter of its peer
 * timeout). RS_E_LOST, RS_E_MALFORMED, or RS_E_INTERRUPTED on a stop
 * request while waiting. */
int fetch_link_state(struct fetch_link *l, uint64_t pos, bool wait,
		     struct fetch_log *out);

/* Reads [pos, end) of the log, as far as one round goes (its buffers),
 * per the state st; *len says how far it got, *bytes where they are.
 * *from_pool says whether any came straight from the pool (then they
 * stand only if the state after still has them: fetch_still_stands). */
int fetch_link_round(struct fetch_link *l, const struct fetch_log *st,
		     uint64_t pos, uint64_t end, const uint8_t **bytes,
		     uint64_t *len, bool *from_pool);

#endif
