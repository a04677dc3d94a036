/* APM: the sender writes the batch into the log's data range, makes it
 * persistent by reading after writing (DDIO off), then writes the offset
 * word, fenced, and reads it back: the receiver's CPU takes no part and no
 * commit request comes. Offered only where the user declares direct write
 * to PMem, on byte-addressable PMem; its writer's own keys reach the whole
 * data range and the offset word, for remote read and write. */
#include "methods/recv_method.h"

#include "error.h"
#include "rdma/mr.h"

static bool apm_offered(const struct recv_offer *o, struct rs_error *why)
{
	/* Not asked for, or the pool could not be registered (told) */
	if (!o->direct_write_to_pmem || (!o->pool_writable && !o->pool_windows))
		return false;
	if (!o->byte_addressable) {
		rs_error_set(why, RS_E_INVAL, 0,
			     "--direct-write-to-pmem ignored: %s is not "
			     "byte-addressable PMem; not offering apm",
			     o->path);
		return false;
	}
	/* Windows reach it, but the device would not take all of it */
	if (!o->pool_writable && o->pool_why_not) {
		rs_error_set(why, RS_E_INVAL, 0,
			     "%s: not offering apm: the RDMA device cannot "
			     "register all of it for direct writes: %s",
			     o->path, o->pool_why_not);
		return false;
	}
	/* Windows only, no key to the whole range: an append-only log */
	return o->pool_writable;
}

const struct recv_method recv_method_apm = {
    .id = RS_METHOD_APM,
    .offered = apm_offered,
    .pool_access = RS_MR_REMOTE_WRITE,
    /* its flush reads and offset write touch only this word */
    .word_access = RS_MR_REMOTE_WRITE | RS_MR_REMOTE_READ,
    .qp_access = RS_MR_REMOTE_WRITE | RS_MR_REMOTE_READ,
};
