/* Flush (IBTA 1.5): the sender writes the batch into the log's data range,
 * makes it persistent with an RDMA FLUSH, stores the new write offset with
 * an RDMA ATOMIC WRITE and flushes that too: no commit request, no
 * receiver CPU. Offered where the device does both operations, the pool is
 * byte-addressable PMem it registers for persistent flushes (rxe requires
 * real PMem: devdax), and the log is not append-only (its writer moves the
 * offset itself). Its writer's own keys reach the whole data range and the
 * offset word, for remote write and flush. */
#include "methods/recv_method.h"

#include "error.h"
#include "rdma/mr.h"

static bool flush_offered(const struct recv_offer *o, struct rs_error *why)
{
	const char *because = 0, *detail = 0;
	if (!o->flush_ops)
		because = o->flush_why_not ? o->flush_why_not
					   : "the RDMA device does not do RDMA "
					     "FLUSH and ATOMIC WRITE";
	else if (o->append_only)
		because = "the log is append-only (a flush writer moves the "
			  "write offset itself)";
	else if (!o->byte_addressable)
		because = "it is not byte-addressable PMem (a page cache "
			  "cannot take an RDMA FLUSH to persistence)";
	else if (!o->pool_writable || !o->pool_flushable) {
		because = "the RDMA device cannot register it for persistent "
			  "flushes";
		detail = o->flush_reg_why_not
			     ? o->flush_reg_why_not
			     : "real PMem it can pin is needed: devdax";
	}
	if (because)
		rs_error_set(why, RS_E_INVAL, 0,
			     "%s: not offering flush: %s%s%s", o->path, because,
			     detail ? ": " : "", detail ? detail : "");
	return !because;
}

const struct recv_method recv_method_flush = {
    .id = RS_METHOD_FLUSH,
    .offered = flush_offered,
    .notice_verbose = true,
    .pool_access = RS_MR_REMOTE_WRITE | RS_MR_FLUSH,
    /* the offset's atomic write and flush touch only this word */
    .word_access = RS_MR_REMOTE_WRITE | RS_MR_REMOTE_READ | RS_MR_FLUSH,
    .qp_access = RS_MR_REMOTE_WRITE | RS_MR_REMOTE_READ | RS_MR_FLUSH,
};
