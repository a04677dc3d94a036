/* What memory a log shows its senders, and to whom: what the device a
 * sender comes in on is given (reach/exposure.h), the methods offered
 * there, and for each sender what it holds of it (its protection domain,
 * its keys or windows, a reader's prefix and ring) and how its grant
 * describes it. Admission (log/admission.h) decides who; this module only
 * shows and takes back, and calls nothing of admission's. */
#ifndef RECV_REACH_MEMORY_H
#define RECV_REACH_MEMORY_H

#include "methods/recv_method.h"
#include "pool/pmem_target.h"
#include "proto/descriptor.h"
#include "reach/exposure.h"
#include "reach/write_windows.h"
#include "reach/writer_keys.h"

#include <stdbool.h>
#include <stdint.h>

struct rs_conn;
struct rs_mw;
struct rs_mr;
struct rs_peer;

/* What one RDMA device was given of a log, and how many sessions on that
 * device hold it: a PMem host with two ports serves a log on both at once. */
struct recv_device_exposure {
	struct recv_exposure *exposure;
	unsigned holders; /* sessions that use it now */
	struct recv_device_exposure *next;
};

/* A log's memory and what each device its senders came in on was given:
 * kept for the log's life (a device's next sender finds it registered),
 * never torn down while a session holds it. */
struct recv_log_memory {
	const struct recv_exposure_config *cfg;
	const struct recv_pmem_target *target;
	struct recv_device_exposure *devices; /* none until a sender comes */
};

/* What one sender is shown of it and holds. */
struct recv_sender_memory {
	const struct recv_log_memory *log;
	/* what its device was given, held until release */
	struct recv_device_exposure *device;
	struct recv_exposure *exposure;	  /* device->exposure */
	const struct rs_connect_req *req; /* its request */
	uint8_t allowed;		  /* the methods its rules allow */
	const char *who;		  /* the sender, in messages */
	struct rs_peer *peer; /* its queue pair's protection domain */
	bool owns_peer;	      /* one of its own (a reader, whole key) */
	bool refill; /* at its end, a key it took made anew for the next */
	struct rs_mr *read_mr;	    /* the log, readable: verify only */
	uint64_t read_rewinds;	    /* the pool's rewinds when made */
	uint8_t *read_ring;	    /* verify, where the pool cannot be read */
	struct rs_mr *read_ring_mr; /* directly: ranges are copied here */
	struct recv_write_windows *windows; /* a gpspm writer's reach */
	struct rs_mw *whole_window;   /* an apm or flush writer's, on a device
				       * that binds windows */
	struct recv_writer_keys keys; /* a writer's, its own */
	/* Its method's own memory (the staging ring) taken for it: given
	 * back at its end. RS_METHOD_AUTO: none. */
	enum rs_method took;
};

void recv_log_memory_init(struct recv_log_memory *lm,
			  const struct recv_exposure_config *cfg,
			  const struct recv_pmem_target *target);
/* Gives back what every device was given (no session holds any now). */
void recv_log_memory_fini(struct recv_log_memory *lm);
/* What the device conn runs on is given (registered the first time a
 * sender comes in on it, then kept). NULL with the error said. */
struct recv_device_exposure *
recv_log_memory_expose_on(struct recv_log_memory *lm,
			  const struct rs_conn *conn);
/* The methods a connection on device d may use: what the device allows of
 * the pool, and of those what the log's rules allow. */
uint8_t recv_log_memory_offered(const struct recv_device_exposure *d,
				const struct rs_connect_req *req,
				uint8_t allowed);
/* Of those, the ones a writer can do (its request says): the grant shows
 * no other, and the same rule picks one on both sides. */
uint8_t recv_log_memory_usable(const struct recv_device_exposure *d,
			       const struct rs_connect_req *req,
			       uint8_t allowed);

/* A sender of req on device d, with allowed from its rules and who to
 * name it by; all outlive m. It holds d from now until release. */
void recv_sender_memory_init(struct recv_sender_memory *m,
			     const struct recv_log_memory *lm,
			     struct recv_device_exposure *d,
			     const struct rs_connect_req *req, uint8_t allowed,
			     const char *who);
/* A writer's method: the one it picks from what it is granted, by the
 * same rule; NULL for a reader. */
const struct recv_method *
recv_sender_memory_method(const struct recv_sender_memory *m);
/* Whether the writer writes in place through windows: gpspm where the
 * device binds them. */
bool recv_sender_memory_through_windows(const struct recv_sender_memory *m);
/* Before its session is set up: where its queue pair lives, its method's
 * own memory, a reader's ring. 0, or an error said. */
int recv_sender_memory_prepare(struct recv_sender_memory *m,
			       const struct rs_conn *conn);
/* The memory part of its grant, as of now (write_offset_value: the log's
 * committed end). An apm or flush writer's window over the data range is
 * bound on conn's queue pair here, before the grant that names it is
 * sent: conn is ready (rs_session_prepare). 0, or an rs_errc with the
 * error said. */
int recv_sender_memory_describe(struct recv_sender_memory *m,
				struct rs_conn *conn,
				struct rs_accept_info *info);
/* A reader's key to the pool's committed prefix ends once the pool went
 * back since its grant (pool/pmem_target.h: rewinds): true when it did
 * now. Its queue pair then reads the pool in place no more. */
bool recv_sender_memory_prefix_ends(struct recv_sender_memory *m);
/* Moves (or with reset, resets) its windows on c from head, with need
 * bytes of room (reach/write_windows.h). */
int recv_sender_memory_window(struct recv_sender_memory *m, struct rs_conn *c,
			      uint64_t head, uint64_t need, bool reset,
			      struct recv_window_binding *b);
/* How far behind the head, and how long, its windows reached what it
 * committed, said. */
void recv_sender_memory_say_reach(const struct recv_sender_memory *m,
				  uint64_t bytes_max, uint64_t ns_max);

/* What its queue pair may do once granted (rdma/conn.h): a reader read,
 * a writer what its method needs. */
unsigned recv_sender_memory_qp_access(const struct recv_sender_memory *m);

/* Its end, in three steps around its queue pair's: the windows before
 * (a bound window holds its queue pair), its keys after (with refill, a
 * key to the whole range registered anew for the next writer that needs
 * one), and last what it read through, its protection domain and its
 * method's own memory. */
void recv_sender_memory_drop_windows(struct recv_sender_memory *m);
void recv_sender_memory_drop_keys(struct recv_sender_memory *m, bool refill);
void recv_sender_memory_release(struct recv_sender_memory *m);
/* How many sessions hold what device d was given (for tests and -v). */
unsigned recv_log_memory_holders(const struct recv_device_exposure *d);

#endif
