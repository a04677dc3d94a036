#include "methods/writer_keys.h"

#include "error.h"
#include "methods/exposure_internal.h"
#include "methods/recv_method.h"
#include "proto/pool_layout.h"
#include "rdma/mr.h"

#include <string.h>

/* The whole data range: the registration the exposure made to learn what
 * the device takes, when it was never handed to anyone and covers what m
 * needs; else a new one. */
static int take_pool(struct recv_exposure *e, unsigned access,
		     struct rs_mr **mr, struct rs_error *err)
{
	const struct recv_pmem_target *t = e->target;
	if (e->spare && (e->spare_access & access) == access) {
		*mr = e->spare;
		e->spare = 0;
		return 0;
	}
	if (rs_mr_reg(e->peer, t->base + t->start, t->end - t->start, access,
		      mr, err))
		return rs_error_wrap(err, "cannot register the log for a "
					  "writer's own key");
	return 0;
}

int recv_writer_keys_take(struct recv_exposure *e, const struct recv_method *m,
			  bool windowed, struct recv_writer_keys *k,
			  struct rs_error *err)
{
	memset(k, 0, sizeof(*k));
	int rc = 0;
	if (m->pool_access && !windowed)
		rc = take_pool(e, m->pool_access, &k->pool, err);
	if (!rc && m->word_access &&
	    rs_mr_reg(e->peer, e->target->base + RS_LOG_WRITE_OFFSET,
		      sizeof(uint64_t), m->word_access, &k->word, err))
		rc = rs_error_wrap(err, "cannot register the write offset");
	if (rc) {
		rs_mr_dereg(&k->pool);
		rs_mr_dereg(&k->word);
	}
	return rc;
}

void recv_writer_keys_describe(const struct recv_writer_keys *k,
			       struct rs_accept_info *info)
{
	if (k->pool)
		info->data = rs_mr_describe(k->pool, RS_MR_USAGE_WRITE_DST);
	if (k->word)
		info->write_offset = rs_mr_describe(
		    k->word, RS_MR_USAGE_WRITE_DST | RS_MR_USAGE_READ_SRC);
}

void recv_writer_keys_drop(struct recv_exposure *e, struct recv_writer_keys *k,
			   bool refill)
{
	bool had_pool = k->pool != 0;
	rs_mr_dereg(&k->pool);
	rs_mr_dereg(&k->word);
	/* The next such writer takes a new registration made now, while no
	 * one waits for it; one that fails is made when it is needed. */
	const struct recv_pmem_target *t = e->target;
	if (refill && had_pool && !e->spare)
		rs_mr_reg(e->peer, t->base + t->start, t->end - t->start,
			  e->spare_access, &e->spare, 0);
}
