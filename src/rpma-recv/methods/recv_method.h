/* The receiver's persistence methods behind one table of operations, one
 * file each (methods/apm.c, methods/gpspm.c, methods/staged.c,
 * methods/flush.c) and a row each in methods/recv_method.c. A method says
 * whether a device and a pool can offer it, what it needs registered besides
 * the log's data range (reach/ registers it), and which commit request it
 * takes and how that request's bytes become persistent. A session's method is
 * chosen once, when it is admitted. A new method is a new file and a row of the
 * table.
 */
#ifndef RECV_METHOD_H
#define RECV_METHOD_H

#include "methods/staging.h"
#include "pool/pmem_target.h"
#include "proto/descriptor.h"
#include "proto/message.h"
#include "proto/method.h"

#include <stdbool.h>
#include <stdint.h>

struct rs_error;

/* Memory a method needs registered of its own on a device, besides the
 * pool: each kind registered and described by reach/own_memory.c. */
enum recv_own_memory {
	RECV_OWN_NONE = 0,
	RECV_OWN_STAGING_RING, /* staged: the DRAM ring a writer writes into */
};

/* What decides whether a method can be offered on a device. */
struct recv_offer {
	const char *path;	   /* the pool, for notices */
	bool direct_write_to_pmem; /* the user says DDIO is off */
	bool byte_addressable; /* stores persist without a page-cache sync */
	bool pool_writable;    /* the log's data range has a key to all of it */
	bool pool_windows;     /* it is written through windows (its tail) */
	bool append_only;      /* no writer may move its offset itself */
	bool flush_ops;	       /* the device does RDMA FLUSH, ATOMIC WRITE */
	const char *flush_why_not; /* when not, why */
	bool pool_flushable;	   /* the pool took persistent-flush access */
	/* Why the device would not register the whole data range, for
	 * direct writes or for persistent flushes (NULL: it did, or it was
	 * not tried) */
	const char *pool_why_not;
	const char *flush_reg_why_not;
};

struct recv_method {
	enum rs_method id;
	/* What it registers is DRAM of its own, not the pool (staged: its
	 * ring): taken only while a session that commits by it is connected
	 * (reach/exposure.h: recv_exposure_take), so that a fleet of
	 * writers that commit otherwise costs none of it. */
	bool on_demand;
	/* True when it can be offered. When not, why holds a notice worth
	 * logging, or nothing when the user did not ask for the method or has
	 * been told already. Pure. */
	bool (*offered)(const struct recv_offer *o, struct rs_error *why);
	/* Its notice is for -v only: it is offered by default, not asked
	 * for, so most receivers that cannot offer it need not say so. */
	bool notice_verbose;
	/* What it needs registered of its own on a device besides the pool
	 * (reach/own_memory.h registers and describes each kind). */
	enum recv_own_memory own_memory;
	/* What its writer's own keys (reach/writer_keys.h), registered for
	 * its session alone, allow (rdma/mr.h; 0: no such key): to the whole
	 * data range (unless windows reach it), and to the write offset's
	 * word, for a writer that stores it itself. */
	unsigned pool_access;
	unsigned word_access;
	/* What its writer may do through its queue pair once granted
	 * (rdma/conn.h: rs_conn_accept's access), with any key it holds:
	 * no more than its writes and its flushes need. */
	unsigned qp_access;
	/* The commit request it takes (0: none, its sender commits alone). */
	uint8_t commit_type;
	/* Whether the request's bytes lie where they must besides the log
	 * (NULL: they are in the log already). */
	bool (*source_ok)(const struct recv_staging *s,
			  const struct rs_msg *req);
	/* Makes the request's bytes persistent in the log. */
	void (*persist)(const struct recv_pmem_target *t,
			const struct recv_staging *s, const struct rs_msg *req);
};

extern const struct recv_method recv_method_apm;
extern const struct recv_method recv_method_gpspm;
extern const struct recv_method recv_method_staged;
extern const struct recv_method recv_method_flush;

/* Every method, fastest first; NULL ends it. */
extern const struct recv_method *const recv_methods[];

/* The method with that id, or NULL (AUTO, unknown). */
const struct recv_method *recv_method_get(enum rs_method id);

/* The method a sender that asked for `requested` uses when offered the
 * methods in `offered` (the sender's own rule), or NULL when none fits. */
const struct recv_method *recv_method_choose(uint8_t offered,
					     enum rs_method requested);

#endif
