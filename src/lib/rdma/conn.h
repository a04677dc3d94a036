/* A connection: one rdma_cm id with its reliable-connected queue pair and
 * its completion queue, waited on without spinning (or spinning, when asked).
 * The sender resolves and connects; the receiver gets connections from a
 * listener and accepts or rejects them. Work is posted against registered
 * memory and remote region descriptors; completions come back as
 * struct rs_completion, so no verbs type leaves the library. Posting fails
 * only on a connection that is gone: those calls return 0 or RS_E_LOST. */
#ifndef RS_CONN_H
#define RS_CONN_H

#include "error.h"
#include "proto/descriptor.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct rs_conn;
struct rs_error;
struct rs_mr;
struct rs_peer;

/* Private data the peer sent with its accept, reject or connect request. */
struct rs_private_data {
	uint8_t bytes[256];
	size_t len;
};

/* Sender side, in order: resolve, create the QP, connect. Connect returns
 * RS_E_REJECTED when the peer refused with private data (in *reply),
 * RS_E_UNREACHABLE when nothing listens there, RS_E_TIMEOUT when no answer
 * came in time. */
int rs_conn_resolve(const char *host, const char *port, int timeout_ms,
		    struct rs_conn **conn, struct rs_error *err);
int rs_conn_connect(struct rs_conn *c, const void *priv, uint8_t priv_len,
		    int timeout_ms, struct rs_private_data *reply,
		    struct rs_error *err);
/* How long rs_conn_connect waited for the peer's answer (an accept or a
 * reject), in ms; -1 when none came. */
int rs_conn_answer_ms(const struct rs_conn *c);

/* Both sides: a queue pair on peer's protection domain, for send_depth
 * posted sends, writes and reads and recv_depth posted receives. */
int rs_conn_create_qp(struct rs_conn *c, struct rs_peer *peer,
		      uint32_t send_depth, uint32_t recv_depth,
		      struct rs_error *err);

/* Receiver side, for a connection a listener handed over. The accept
 * completes with the listener's ESTABLISHED event for c. access: what the
 * peer may do through the queue pair with a key of this side's
 * (RS_MR_REMOTE_WRITE, RS_MR_REMOTE_READ, RS_MR_FLUSH of rdma/mr.h; 0:
 * nothing), from the first packet on: the queue pair is made ready with
 * only that, never with rdma_cm's every access. */
int rs_conn_accept(struct rs_conn *c, const void *priv, uint8_t priv_len,
		   unsigned access, struct rs_error *err);
/* rs_conn_accept in two steps: the queue pair made ready (RTS) with
 * access, and later the answer with priv. Work posted between the two (a
 * memory window's binding, rdma/mw.h) is done before the peer hears of
 * the connection. */
int rs_conn_ready(struct rs_conn *c, unsigned access, struct rs_error *err);
int rs_conn_answer(struct rs_conn *c, const void *priv, uint8_t priv_len,
		   struct rs_error *err);
/* Changes what the peer may do through an accepted queue pair (as
 * rs_conn_accept's access), e.g. once it has proved a key. */
int rs_conn_set_access(struct rs_conn *c, unsigned access,
		       struct rs_error *err);
void rs_conn_reject(struct rs_conn *c, const void *priv, uint8_t priv_len);
/* Receiver side, before the accept: whether the request's sender gave up
 * on it (its connect timed out, or it went: the connection manager has
 * said so on the request's own events). Such a request must be dropped:
 * its queue pair cannot be made any more (rdma_cm's attributes for it
 * fail with EINVAL). Takes no time: only what has arrived is read. */
bool rs_conn_withdrawn(struct rs_conn *c);
/* Whether err, from setting up an accepted connection
 * (rs_conn_create_qp), says its sender withdrew the request meanwhile:
 * there is no one to refuse, and nothing failed here. */
static inline bool rs_conn_withdrawn_error(const struct rs_error *err)
{
	return err && err->code == RS_E_LOST && err->sys_errno == ECONNABORTED;
}

void rs_conn_disconnect(struct rs_conn *c);
void rs_conn_delete(struct rs_conn **c);

/* Spin on the completion queue instead of sleeping: lowest latency, a busy
 * core. */
void rs_conn_set_busy_poll(struct rs_conn *c, bool busy_poll);

const struct sockaddr *rs_conn_peer_addr(const struct rs_conn *c);
/* The peer's numeric address, formatted into buf. */
const char *rs_conn_peer_str(const struct rs_conn *c, char *buf, size_t len);

/* Posting work. wr_id comes back in the completion. */
#define RS_POST_SIGNALED 0x1u /* report a completion */
#define RS_POST_FENCE 0x2u    /* start after the reads before it completed */
/* Hold this one back: it goes out with the next post without the flag, as
 * one chain (one doorbell). At most RS_CONN_CHAIN_MAX in a chain. */
#define RS_POST_MORE 0x4u
#define RS_CONN_CHAIN_MAX 4

int rs_conn_write(struct rs_conn *c, const struct rs_mr_desc *dst,
		  uint64_t dst_offset, const struct rs_mr *src,
		  size_t src_offset, uint32_t len, uint64_t wr_id,
		  unsigned flags);
/* A probe of the link: an RDMA WRITE of no bytes. The peer's adapter
 * acknowledges it without waking the peer's program. A peer (host, link or
 * queue pair) that is gone fails it once the transport's retries are spent,
 * or never answers it where the device resends for ever (Soft-RoCE with 7
 * retries): the caller times it. Its completion carries RS_CONN_PROBE_WR_ID
 * (an error completion's op is undefined: the id tells). */
#define RS_CONN_PROBE_WR_ID (UINT64_MAX - 1)
int rs_conn_probe(struct rs_conn *c, unsigned flags);
int rs_conn_read(struct rs_conn *c, struct rs_mr *dst, size_t dst_offset,
		 const struct rs_mr_desc *src, uint64_t src_offset,
		 uint32_t len, uint64_t wr_id, unsigned flags);
int rs_conn_send(struct rs_conn *c, const struct rs_mr *src, size_t offset,
		 uint32_t len, uint64_t wr_id, unsigned flags);
int rs_conn_recv(struct rs_conn *c, struct rs_mr *dst, size_t offset,
		 uint32_t len, uint64_t wr_id);

/* IBTA 1.5, on a queue pair made where the build and the device have them
 * (rs_peer_can_flush): whether c can post the two (when not, *why_not
 * says why), */
bool rs_conn_can_flush(const struct rs_conn *c, const char **why_not);
/* RDMA FLUSH: the peer makes [dst_offset, +len) of dst persistent before
 * it answers; */
int rs_conn_flush(struct rs_conn *c, const struct rs_mr_desc *dst,
		  uint64_t dst_offset, uint32_t len, uint64_t wr_id,
		  unsigned flags);
/* RDMA ATOMIC WRITE: the 8 bytes at src_offset of src land whole at
 * dst_offset of dst (8-byte aligned), read from src when posted. Both
 * RS_E_INVAL on a connection that cannot post them. */
int rs_conn_atomic_write(struct rs_conn *c, const struct rs_mr_desc *dst,
			 uint64_t dst_offset, const struct rs_mr *src,
			 size_t src_offset, uint64_t wr_id, unsigned flags);

enum rs_op {
	RS_OP_WRITE,
	RS_OP_READ,
	RS_OP_SEND,
	RS_OP_RECV,
	RS_OP_FLUSH,
	RS_OP_OTHER,
};

struct rs_completion {
	uint64_t wr_id;
	enum rs_op op;
	bool ok;
	bool flushed;	    /* not done: the connection went down first */
	const char *status; /* what went wrong, when !ok */
	uint32_t byte_len;  /* received bytes */
};

enum rs_wait_result {
	RS_WAIT_COMPLETION = 0, /* *wc holds one completion */
	RS_WAIT_CM_EVENT = 1,	/* a connection event is pending */
	RS_WAIT_TIMEOUT = 2,	/* or a signal interrupted the wait */
	RS_WAIT_ERROR = 3,
};

/* Returns the next completion, waiting at most timeout_ms (-1: forever).
 * Also returns when a connection event is pending, so a disconnect is
 * noticed. */
enum rs_wait_result rs_conn_next_completion(struct rs_conn *c,
					    struct rs_completion *wc,
					    int timeout_ms);

/* One look at the completion queue, no system call: COMPLETION or TIMEOUT
 * (nothing there) or ERROR. For spinning; leaves the queue's arming as it
 * was. */
enum rs_wait_result rs_conn_poll_completion(struct rs_conn *c,
					    struct rs_completion *wc);

/* Before rs_conn_create_qp: the send queue completes into a queue of its
 * own that raises no event. Its completions (replies reclaimed, probes
 * answered) wake nobody; every take of completions looks at it first, and
 * rs_conn_poll_sends alone looks at it, no system call. For a program that
 * posts mostly unasked (the receiver): many idle connections, few wakes. */
void rs_conn_quiet_sends(struct rs_conn *c);
/* One look at the quiet send queue (nothing there without quiet sends). */
enum rs_wait_result rs_conn_poll_sends(struct rs_conn *c,
				       struct rs_completion *wc);

/* The descriptors to poll(2) for a completion (after a wait returned
 * TIMEOUT, which leaves the completion queue armed) and for a connection
 * event, for a caller that waits on other things too. */
void rs_conn_fds(const struct rs_conn *c, int *completion_fd, int *event_fd);

/* Connection events of a sender's own connection. */
enum rs_conn_event {
	RS_CONN_EVENT_NONE,
	RS_CONN_EVENT_ESTABLISHED, /* an accepted connection is complete */
	RS_CONN_EVENT_CLOSED, /* disconnected, failed, or the device went away
			       */
	RS_CONN_EVENT_OTHER,
};

/* Takes one pending event without waiting (NONE when there is none). */
enum rs_conn_event rs_conn_next_event(struct rs_conn *c);

#endif
