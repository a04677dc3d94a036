/* One receiver a stream goes to: its session, the batch ring registered for
 * it, how it commits (its method), its keepalives, peer timeout, reconnect
 * clock and statistics. The fleet owns the window and decides; a replica
 * posts the window's batches to its receiver and reports what came back,
 * one piece of news at a time, in the log positions the window uses (bytes
 * from the start of the data range: the replicas' pools may start
 * elsewhere). */
#ifndef SEND_REPLICA_H
#define SEND_REPLICA_H

#include "cli/endpoint.h"
#include "proto/method.h"
#include "rdma/spin.h"
#include "send_config.h"
#include "send_method.h"
#include "session/session.h"
#include "stats.h"
#include "window.h"

#include <stdbool.h>
#include <stdint.h>

struct replica {
	const struct ship_config *cfg;
	const struct rs_target *target;
	unsigned index;			  /* its place in the window */
	char label[RS_TARGET_LABEL_SIZE]; /* how messages name it */
	struct rs_session *rs;		  /* NULL while disconnected */
	const struct send_method *method; /* chosen at the first grant */
	uint8_t pool_uuid[16];		  /* the pool it started on */
	uint64_t log_start;		  /* its pool's data range, absolute */
	uint64_t log_end;
	struct rs_mr *ring_mr;
	void *words; /* the method's words, per credit slot, or NULL */
	struct rs_mr *words_mr;
	/* Its session: the token to take it over after losing the
	 * connection, and the receiver's peer timeout, within which we hear
	 * from it or count the link as lost. */
	struct rs_session_token token;
	bool have_token;
	uint64_t peer_timeout_ns;
	uint64_t last_sent_ns;		    /* a batch or a keepalive */
	uint64_t keepalive_sent_ns;	    /* one unanswered, or 0 */
	uint64_t last_confirm_ns;	    /* for the stall check */
	struct rs_spin spin;		    /* how long confirmations take */
	uint64_t posted_ns[SHIP_DEPTH_MAX]; /* per batch slot */
	struct send_stats stats;	    /* what it confirmed, how fast */
	/* Reconnecting after a loss (--retry): attempts made, the next. */
	unsigned attempts;
	unsigned backoff_ms;
	uint64_t retry_at_ns;
};

void replica_init(struct replica *r, const struct ship_config *cfg,
		  const struct rs_target *target, unsigned index);
/* Disconnects and frees. */
void replica_fini(struct replica *r);

const struct rs_accept_info *replica_grant(const struct replica *r);
/* The method in use: AUTO before the first grant chose one. */
enum rs_method replica_method(const struct replica *r);

/* Connects once, waiting up to timeout_ms (the first connection may
 * truncate and asks for the configured method; later ones take the session
 * over and ask for the method in use), with room for slots batches in
 * flight. Returns an exit code; *transient says whether trying again may
 * help. */
int replica_connect(struct replica *r, bool first, uint16_t slots,
		    int timeout_ms, bool *transient);
/* Registers the window's ring (and the method's words) with the
 * connection. */
int replica_register(struct replica *r, const struct send_window *w);
/* The log's end in window positions, as the grant says. */
uint64_t replica_granted_end(const struct replica *r);
/* A granted session: its token, its peer timeout, a fresh clock. */
void replica_started(struct replica *r);
void replica_disconnect(struct replica *r);

/* Writes batch b and asks for its commit, as one chain. Non-zero: lost. */
int replica_post(struct replica *r, const struct send_window *w,
		 const struct window_batch *b);

/* What came back from the receiver. */
enum replica_news {
	REPLICA_NOTHING,   /* nothing that changes the window */
	REPLICA_CONFIRMED, /* batch seq is committed; the log ends at offset */
	REPLICA_LINK_LOST, /* the connection is gone */
	REPLICA_REFUSED,   /* the receiver refused or misbehaved: stop */
};

struct replica_report {
	enum replica_news news;
	uint32_t seq;
	uint64_t offset;
};

/* Takes completions and connection events without waiting until one is
 * news (true, *out filled) or none is left (false). */
bool replica_next(struct replica *r, const struct send_window *w,
		  struct replica_report *out);
/* Adaptive waiting: while its oldest batch's confirmation is due soon,
 * look for it without sleeping (a wake-up can cost more than the round
 * trip): until when, or 0 when not worth it. */
uint64_t replica_spin_until(const struct replica *r,
			    const struct send_window *w);
/* Looks once, without a system call. True when a completion came (*out
 * says whether it was news). */
bool replica_poll(struct replica *r, const struct send_window *w,
		  struct replica_report *out);
/* Batch b was confirmed: its latency, the stall clock. */
void replica_confirmed(struct replica *r, const struct send_window *w,
		       const struct window_batch *b, uint64_t now_ns);

/* Keepalives: an idle connection still proves both ends alive, a quarter
 * of the peer timeout after the last thing we sent, one at a time. */
bool replica_keepalive_due(const struct replica *r, const struct send_window *w,
			   uint64_t now_ns);
/* When the next keepalive is due, or 0 when none is wanted. */
uint64_t replica_keepalive_at(const struct replica *r,
			      const struct send_window *w);
/* Non-zero: the connection is lost. */
int replica_send_keepalive(struct replica *r, uint64_t now_ns);
/* The oldest thing the receiver has not answered, or 0. */
uint64_t replica_oldest_unanswered(const struct replica *r,
				   const struct send_window *w);

/* The descriptors to poll for its completions and connection events. */
void replica_fds(const struct replica *r, int *completion_fd, int *event_fd);

#endif
