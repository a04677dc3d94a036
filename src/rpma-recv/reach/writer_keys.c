#include "reach/writer_keys.h"

#include "error.h"
#include "methods/recv_method.h"
#include "proto/pool_layout.h"
#include "rdma/mr.h"

int recv_writer_keys_take(struct rs_peer *peer,
			  const struct recv_pmem_target *t,
			  const struct recv_method *m, bool windowed,
			  struct recv_writer_keys *k, struct rs_error *err)
{
	int rc = 0;
	if (m->pool_access && !windowed && !k->pool &&
	    rs_mr_reg(peer, t->base + t->start, t->end - t->start,
		      m->pool_access, &k->pool, err))
		rc = rs_error_wrap(err, "cannot register the log for a "
					"writer's own key");
	if (!rc && m->word_access && !k->word &&
	    rs_mr_reg(peer, t->base + RS_LOG_WRITE_OFFSET, sizeof(uint64_t),
		      m->word_access, &k->word, err))
		rc = rs_error_wrap(err, "cannot register the write offset");
	if (rc)
		recv_writer_keys_drop(k);
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

void recv_writer_keys_drop(struct recv_writer_keys *k)
{
	rs_mr_dereg(&k->pool);
	rs_mr_dereg(&k->word);
}
