/* The verify pipeline's link over a verify session: hash requests and
 * staged reads go as control messages, read-backs as RDMA reads (of the
 * log where the receiver grants it, else of the ring slot it staged the
 * bytes in) into registered buffers, one chunk per slot; completions
 * become the pipeline's events. The session is the caller's. */
#ifndef SEND_VERIFY_RDMA_H
#define SEND_VERIFY_RDMA_H

#include "cli/endpoint.h"
#include "verify/pipeline.h"
#include "verify/plan.h"

#include <stdbool.h>

struct rs_error;
struct rs_session;
struct verify_rdma;

/* What the session's grant offers a verify. */
void verify_rdma_offer(const struct rs_session *rs, struct verify_offer *o);

/* A link for the plan over rs, to the receiver remote names (for
 * messages). RS_E_NOMEM when its buffers cannot be allocated or
 * registered. */
int verify_rdma_new(struct verify_rdma **l, struct rs_session *rs,
		    const struct verify_plan *plan,
		    const struct rs_target *remote, struct rs_error *err);
void verify_rdma_delete(struct verify_rdma **l);

struct verify_link verify_rdma_link(struct verify_rdma *l);

/* Waits up to a second for one completion and hands it to p as an event
 * (sets *idle when none came). Returns what the event returned. */
int verify_rdma_pump(struct verify_rdma *l, struct verify_pipeline *p,
		     bool *idle, struct rs_error *err);

#endif
