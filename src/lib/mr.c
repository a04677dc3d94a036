#include "mr.h"

#include <errno.h>
#include <stdint.h>

int rs_mr_reg(struct rs_peer *peer, void *addr, size_t len, int access,
	      struct ibv_mr **mr)
{
	errno = 0;
	*mr = ibv_reg_mr(peer->pd, addr, len, access);
	if (*mr)
		return 0;
	int err = errno ? errno : ENOMEM;
	/* fsdax mappings cannot be pinned; ODP devices fault them in. */
	if (err == EOPNOTSUPP && peer->odp_rc_write_read) {
		errno = 0;
		*mr = ibv_reg_mr(peer->pd, addr, len,
				 access | IBV_ACCESS_ON_DEMAND);
		if (*mr)
			return 0;
		err = errno ? errno : ENOMEM;
	}
	return err;
}

void rs_mr_dereg(struct ibv_mr **mr)
{
	if (*mr)
		ibv_dereg_mr(*mr);
	*mr = 0;
}

const char *rs_mr_reg_advice(int err)
{
	switch (err) {
	case ENOMEM:
	case EAGAIN:
		return "the locked-memory limit is too low; raise it with "
		       "`ulimit -l unlimited` (or memlock in "
		       "/etc/security/limits.conf)";
	case EOPNOTSUPP:
		return "this memory cannot be pinned (fsdax without ODP); use "
		       "devdax, an ODP-capable device, or the staged method";
	case EINVAL:
		return "the device rejected the region or its access flags";
	case EFAULT:
		return "the address range is not mapped";
	default:
		return "check the RDMA device and memory limits";
	}
}

struct rs_mr_desc rs_mr_describe(const struct ibv_mr *mr, uint8_t usage)
{
	return (struct rs_mr_desc){
	    .addr = (uint64_t)(uintptr_t)mr->addr,
	    .length = mr->length,
	    .rkey = mr->rkey,
	    .usage = usage,
	};
}
