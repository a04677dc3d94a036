#include "rdma/mr.h"

#include "error.h"
#include "rdma/internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int rs_remote_access(unsigned access)
{
	int flags = 0;
	if (access & RS_MR_REMOTE_WRITE)
		flags |= IBV_ACCESS_REMOTE_WRITE;
	if (access & RS_MR_REMOTE_READ)
		flags |= IBV_ACCESS_REMOTE_READ;
#ifdef RS_HAVE_IBV_FLUSH
	if (access & RS_MR_FLUSH)
		flags |= IBV_ACCESS_FLUSH_PERSISTENT;
#endif
	return flags;
}

static int access_flags(unsigned access)
{
	int flags = rs_remote_access(access);
	/* rxe needs local write even on receive buffers; remote write
	 * requires it everywhere. */
	if (access & (RS_MR_LOCAL | RS_MR_REMOTE_WRITE))
		flags |= IBV_ACCESS_LOCAL_WRITE;
	/* A window that may write needs local write on its region. */
	if (access & RS_MR_BIND)
		flags |= IBV_ACCESS_MW_BIND | IBV_ACCESS_LOCAL_WRITE;
	return flags;
}

/* Whether this process holds CAP_IPC_LOCK (the kernel then pins past
 * the memlock limit): bit 14 of CapEff in /proc/self/status. */
static bool can_lock_any(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	unsigned long long caps = 0;
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &caps) == 1;
	if (f)
		fclose(f);
	return found && (caps >> 14 & 1);
}

/* Whether pinned memory is limited for this process: with CAP_IPC_LOCK or
 * an unlimited memlock it is not, and ENOMEM is the kernel's or the
 * device's own limit (Soft-RoCE on Linux 6.12: 1 GiB a region). */
static bool memlock_limited(void)
{
	struct rlimit l;
	return !can_lock_any() && getrlimit(RLIMIT_MEMLOCK, &l) == 0 &&
	       l.rlim_cur != RLIM_INFINITY;
}

static const char *advice(int e)
{
	switch (e) {
	case ENOMEM:
	case EAGAIN:
		if (!memlock_limited())
			return "the RDMA device or the kernel cannot pin that "
			       "much in one region (no locked-memory limit "
			       "applies); a smaller pool, or the staged method";
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

static struct ibv_mr *reg(struct rs_peer *peer, void *addr, size_t len,
			  int flags, int *e)
{
	errno = 0;
	struct ibv_mr *mr = ibv_reg_mr(peer->pd, addr, len, flags);
	*e = mr ? 0 : (errno ? errno : ENOMEM);
	return mr;
}

int rs_mr_reg(struct rs_peer *peer, void *addr, size_t len, unsigned access,
	      struct rs_mr **mr, struct rs_error *err)
{
#ifndef RS_HAVE_IBV_FLUSH
	if (access & RS_MR_FLUSH)
		return rs_error_set(err, RS_E_PROVIDER, EINVAL, "%s",
				    RS_NO_FLUSH_BUILD);
#endif
	int flags = access_flags(access), e;
	struct ibv_mr *m = reg(peer, addr, len, flags, &e);
	/* fsdax mappings cannot be pinned; ODP devices fault them in. */
	if (!m && e == EOPNOTSUPP && peer->odp_rc_write_read)
		m = reg(peer, addr, len, flags | IBV_ACCESS_ON_DEMAND, &e);
	if (!m)
		return rs_error_set(err,
				    e == ENOMEM ? RS_E_NOMEM : RS_E_PROVIDER, e,
				    "%s", advice(e));
	*mr = calloc(1, sizeof(**mr));
	if (!*mr) {
		ibv_dereg_mr(m);
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	}
	(*mr)->mr = m;
	return 0;
}

void rs_mr_dereg(struct rs_mr **mr)
{
	if (!*mr)
		return;
	ibv_dereg_mr((*mr)->mr);
	free(*mr);
	*mr = 0;
}

int rs_mr_try_dereg(struct rs_mr **mr)
{
	if (!*mr)
		return 0;
	int e = ibv_dereg_mr((*mr)->mr);
	if (e)
		return e;
	free(*mr);
	*mr = 0;
	return 0;
}

struct rs_mr_desc rs_mr_describe(const struct rs_mr *mr, uint8_t usage)
{
	return (struct rs_mr_desc){
	    .addr = (uint64_t)(uintptr_t)mr->mr->addr,
	    .length = mr->mr->length,
	    .rkey = mr->mr->rkey,
	    .usage = usage,
	};
}
