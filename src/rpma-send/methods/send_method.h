/* The persistence methods on the sender's side, one file each
 * (methods/apm.c, methods/gpspm.c, methods/staged.c, methods/flush.c)
 * behind one table of operations: whether a receiver's grant fits the method,
 * the chain of work requests that writes a batch and asks for its commit, and
 * what in the answers confirms one. A replica looks its method up once, when
 * the first grant agrees on it, and never branches on the method again. A new
 * method is a new file and a row in methods/send_method.c's table.
 *
 * The operations touch no connection: post fills a chain (methods/chain.h) that
 * the replica posts, take reads a completion the replica took. */
#ifndef SEND_METHOD_H
#define SEND_METHOD_H

#include "methods/chain.h"
#include "proto/descriptor.h"
#include "proto/message.h"
#include "proto/method.h"
#include "rdma/conn.h"
#include "stream/window.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_error;

/* What a method knows of the replica it posts for. */
struct method_ctx {
	const struct rs_accept_info *grant; /* its session's */
	/* The log's data range as the batches are written to it: the
	 * grant's, with the window key in use where it grants windows. */
	struct rs_mr_desc data;
	uint32_t key;	    /* that key, named in commit requests; 0: none */
	uint64_t log_start; /* its pool's data range, absolute */
	/* The log position pos_base lies pool_at bytes into the data range:
	 * at its start (rotation moved pos_base), or where a replacement
	 * begins (counting from 0). */
	uint64_t pos_base;
	uint64_t pool_at;
	const struct send_window *w; /* the batches, their credit slots */
	/* Batches posted to this replica and not confirmed, the one being
	 * posted included: 1 when it goes alone. */
	unsigned inflight;
	/* A windowed writer's batch alone in flight with nothing more
	 * waiting: its commit says so (RS_MSG_LONE) and the replica posts
	 * nothing before the reply. */
	bool lone;
	void *words; /* window_depth times words_per_slot bytes, registered */
};

/* Something that came back: a completion of our work, and for a receive
 * the message it carried (keepalive replies are the replica's). */
struct method_event {
	enum rs_op op;
	uint64_t wr_id;
	const struct rs_msg *msg; /* RS_OP_RECV, else NULL */
};

/* Where log position pos lies in the pool: bytes from the data range's
 * start. */
static inline uint64_t method_in_pool(const struct method_ctx *m, uint64_t pos)
{
	return m->pool_at + (pos - m->pos_base);
}

/* Batch seq is committed: the log ends at log position offset. */
struct method_confirm {
	uint32_t seq;
	uint64_t offset;
};

struct send_method {
	enum rs_method id;
	/* Local memory it posts from besides the ring, per credit slot. */
	size_t words_per_slot;
	/* Whether a batch's chain sends the receiver a message (a commit
	 * request): the receiver hears from a streaming sender only so;
	 * without one it needs keepalives even while batches fly. */
	bool posts_message;
	/* The largest batch a receiver granting info takes by it, and what
	 * to say when a later grant's is smaller than the batches in use;
	 * NULL: no bound of its own. */
	uint32_t (*batch_cap)(const struct rs_accept_info *info);
	const char *cap_shrunk;
	/* The chain that writes b and asks for its commit (fills the
	 * slot's words first, when it has some). */
	void (*post)(const struct method_ctx *m, const struct window_batch *b,
		     struct send_chain *chain);
	/* 1 when ev confirms a batch (*out), 0 when it is no news; a
	 * negative rs_errc when the receiver answered badly: RS_E_MALFORMED
	 * for a reply that makes no sense, RS_E_REJECTED for a refusal,
	 * RS_E_LOST for a batch refused as not where the log ends (commits
	 * before it lost on the way: the session is lost, not the stream),
	 * with the text in err. */
	int (*take)(const struct method_ctx *m, const struct method_event *ev,
		    struct method_confirm *out, struct rs_error *err);
	/* The chain to post when ev arrives, before take reads it (NULL, or
	 * an empty chain: none): a commit's second half, which may go out
	 * only once its first half completed. */
	void (*then)(const struct method_ctx *m, const struct method_event *ev,
		     struct send_chain *chain);
};

/* The rows, one file each. */
extern const struct send_method method_apm;
extern const struct send_method method_gpspm;
extern const struct send_method method_staged;
extern const struct send_method method_flush;

/* The row of m, or NULL for AUTO or a method this sender cannot post. */
const struct send_method *send_method_of(enum rs_method m);
/* RS_METHOD_BIT() of each method this sender can post: what a writer's
 * connect request says it can do (the library leaves flush out where the
 * connection cannot post it). */
uint8_t send_methods_known(void);

/* The method to use with a receiver offering offered (RS_METHOD_BIT()s):
 * requested if offered, with AUTO the fastest offered. RS_E_REJECTED with
 * a sentence saying what the receiver offers when none fits: its offer
 * refuses us, whatever we asked for. */
int send_method_choose(uint8_t offered, enum rs_method requested,
		       const struct send_method **chosen, struct rs_error *err);

/* As send_method_choose, for a grant of granted where this connection
 * cannot post flush (flush_why_not says why; NULL: it can): flush is left
 * out, and a choice that finds nothing else says so with that reason (a
 * 0.3.0 receiver grants flush alone to a sender it cannot ask). */
int send_method_plan(uint8_t granted, const char *flush_why_not,
		     enum rs_method requested,
		     const struct send_method **chosen, struct rs_error *err);

/* Whether a receiver granting info (still) offers m. */
bool send_method_offered(const struct send_method *m,
			 const struct rs_accept_info *info);
/* The largest batch it takes by m: UINT32_MAX when m has no bound. */
uint32_t send_method_batch_cap(const struct send_method *m,
			       const struct rs_accept_info *info);
/* Whether a later grant still takes m's batches of batch_max bytes: 0, or
 * RS_E_REJECTED with m's cap_shrunk in err. */
int send_method_check_cap(const struct send_method *m,
			  const struct rs_accept_info *info, uint32_t batch_max,
			  struct rs_error *err);

/* For the methods whose sender commits alone (apm, flush): the completion
 * of the commit's last request, of op `last` and signaled with the batch's
 * seq, confirms the batch (the log ends at its end); anything else is
 * taken as a commit reply, as the other methods take one. Defined in
 * methods/commit_message.c, beside commit_message_take. */
int send_method_take_own(const struct method_ctx *m,
			 const struct method_event *ev, enum rs_op last,
			 struct method_confirm *out, struct rs_error *err);

/* The chain's first request, for every method: b's bytes from the ring to
 * dst_offset of dst, held back for the commit that follows. */
void send_method_write_batch(const struct method_ctx *m, struct send_chain *c,
			     const struct rs_mr_desc *dst, uint64_t dst_offset,
			     const struct window_batch *b);

#endif
