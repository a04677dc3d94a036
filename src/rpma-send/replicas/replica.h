/* One receiver a stream goes to: its session, the batch ring registered for
 * it, how it commits (its method, from methods/send_method.h's table), its
 * keepalives, peer timeout and statistics. The fleet owns the window and
 * decides; a replica posts the window's batches to its receiver and reports
 * what came back, one piece of news at a time, in the log positions the window
 * uses (bytes from the start of the log's whole content: its archive, then
 * its pool; each replica's pool starts at a position of its own). */
#ifndef SEND_REPLICA_H
#define SEND_REPLICA_H

#include "cli/endpoint.h"
#include "common/send_config.h"
#include "common/stats.h"
#include "proto/descriptor.h"
#include "proto/method.h"
#include "replicas/liveness.h"
#include "stream/window.h"

#include <stdbool.h>
#include <stdint.h>

struct rs_error;
struct send_hint_wait;
struct rs_msg;

/* Its state is its own (replicas/replica.c). */
struct replica;

/* Replica number index of the window, going to target; NULL when out of
 * memory. */
struct replica *replica_new(const struct ship_config *cfg,
			    const struct rs_target *target, unsigned index);
/* Disconnects and frees. */
void replica_delete(struct replica *r);

unsigned replica_index(const struct replica *r);
const char *replica_label(const struct replica *r); /* how messages name it */
const struct rs_target *replica_target(const struct replica *r);
/* Whether it has a session (it may still count as a replica without). */
bool replica_connected(const struct replica *r);
/* What it confirmed, how fast. */
const struct send_stats *replica_stats(const struct replica *r);

/* The current session's grant. */
const struct rs_accept_info *replica_grant(const struct replica *r);
/* The method in use: AUTO before the first grant chose one. */
enum rs_method replica_method(const struct replica *r);

/* The first grant: chooses the method (requested, or with AUTO the fastest
 * it offers) and records its pool and where its log lies. RS_E_REJECTED
 * with err saying what it offers when none fits. */
int replica_plan(struct replica *r, enum rs_method requested,
		 struct rs_error *err);
/* The end of what its pool can hold now, in window positions. */
uint64_t replica_log_end(const struct replica *r);
/* The largest batch its receiver takes by the method in use. */
uint32_t replica_batch_cap(const struct replica *r);
/* Whether a later grant can carry on the stream (depth batches of up to
 * batch_max bytes in flight, on the pool it started on, by the method in
 * use): 0, or RS_E_REJECTED with why not in err. */
int replica_check_fit(const struct replica *r, uint16_t depth,
		      uint32_t batch_max, struct rs_error *err);

/* Connects once, waiting up to timeout_ms (the first connection may
 * truncate and asks for the configured method; later ones take the session
 * over and ask for the method in use), with room for slots batches in
 * flight. Returns send_connect's code, reported: RS_ERRC_TRANSIENT says
 * whether trying again may help. A refusal that says when to ask again is
 * waited out here, or with `later` returned unreported for the caller's
 * loop to ask again at later->next_ms (struct send_peer). */
int replica_connect(struct replica *r, bool first, uint16_t slots,
		    int timeout_ms, struct send_hint_wait *later);
/* Registers the window's ring (and the method's words) with the
 * connection. RS_E_NOMEM, reported, when it cannot. */
int replica_register(struct replica *r, const struct send_window *w);
/* The log's end in window positions, as the grant says. */
uint64_t replica_granted_end(const struct replica *r);
/* A granted session: its token, its peer timeout, a fresh clock, and
 * where its receiver grants memory windows, the first key to write with
 * (asked for now: nothing is in flight). 0, RS_E_LOST, RS_E_TIMEOUT or
 * RS_E_MALFORMED (a refusal too). */
int replica_started(struct replica *r);
void replica_disconnect(struct replica *r);

/* Whether its receiver rotates the log: a full pool is archived and
 * started over when asked (replica_rebase), not the end. */
bool replica_rotates(const struct replica *r);
/* Whether it asked for that and has no answer yet. */
bool replica_rebasing(const struct replica *r);
/* Asks its receiver to archive its pool and start it over; nothing may be
 * in flight to it, its log ending at position end. Non-zero: lost. */
int replica_rebase(struct replica *r, uint64_t end);

/* Replacing the log (--truncate, not in place): asks its receiver where a
 * replacement of `expected` bytes (0: not known) goes, or, carry_on, where
 * the one this stream began stands after a reconnection; from then on
 * window positions count from the replacement's start. 0 with the reply
 * (its status the receiver's), or the link's RS_E_* (lost, timed out,
 * malformed). Nothing may be in flight. */
int replica_replace(struct replica *r, bool carry_on, uint64_t expected,
		    struct rs_msg *reply);
/* The replacement is whole, ending at window position end: asks its
 * receiver to make it the log. 0 with the reply, or the link's RS_E_*. */
int replica_switch(struct replica *r, uint64_t end, struct rs_msg *reply);

/* Writes batch b and asks for its commit, as one chain. Non-zero: lost. */
int replica_post(struct replica *r, const struct send_window *w,
		 const struct window_batch *b);

/* What came back from the receiver. */
enum replica_news {
	REPLICA_NOTHING,   /* nothing that changes the window */
	REPLICA_CONFIRMED, /* batch seq is committed; the log ends at offset */
	REPLICA_LINK_LOST, /* the connection is gone */
	REPLICA_REFUSED,   /* the receiver refused or misbehaved: stop */
	REPLICA_REBASED,   /* its pool now starts at position offset */
	REPLICA_FULL,	   /* its pool is full for good: status says why */
};

struct replica_report {
	enum replica_news news;
	uint32_t seq;
	uint64_t offset;
	uint8_t status; /* REPLICA_FULL: the receiver's RS_MSG_* */
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

/* Keepalives: a connection the receiver hears nothing on (idle, or an apm
 * stream, which sends no messages) still proves both ends alive, a
 * quarter of the peer timeout after the last message we sent, one at a
 * time. */
bool replica_keepalive_due(const struct replica *r, uint64_t now_ns);
/* When the next keepalive is due, or 0 when none is wanted. */
uint64_t replica_keepalive_at(const struct replica *r);
/* Non-zero: the connection is lost. */
int replica_send_keepalive(struct replica *r, uint64_t now_ns);
/* A silent link (a cable pulled, a host gone) reports no error for a long
 * time, a busy one answers late (replicas/liveness.h): what to do about
 * what the receiver owes us at now_ns (*for_ns: how long nothing came
 * back), the time this sender could not run (stall) left out. */
enum send_liveness_verdict replica_liveness(const struct replica *r,
					    const struct send_window *w,
					    uint64_t now_ns,
					    const struct rs_stall *stall,
					    uint64_t *for_ns);
/* Probes the link, for replica_liveness. Non-zero: the connection is
 * lost. */
int replica_probe(struct replica *r, uint64_t now_ns);
/* Says (-v) what a verdict other than SEND_LIVE means, after silent_ns
 * without an answer; a verdict that ends the connection is its
 * replica_lost_why. */
void replica_say_silence(struct replica *r, enum send_liveness_verdict v,
			 uint64_t silent_ns);
/* Why its connection was lost, for the message that says so ("" when not
 * known), and how a caller that finds the loss records it. */
const char *replica_lost_why(const struct replica *r);
void replica_lost_because(struct replica *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The descriptors to poll for its completions and connection events. */
void replica_fds(const struct replica *r, int *completion_fd, int *event_fd);

#endif
