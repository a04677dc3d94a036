/* The replicas of one stream and the window they share. The fleet starts
 * them (connects each, checks that they hold the same log, sizes the one
 * ring), takes what each reports, keeps each link alive, and when one is
 * lost reconnects it on its own clock (--retry) while the others stream
 * on: a replica that comes back is posted its gap from the ring; one that
 * cannot is given up, and the stream goes on while the commit rule can
 * still be met. The shipper owns the input and the loop. */
#ifndef SEND_FLEET_H
#define SEND_FLEET_H

#include "common/send_config.h"
#include "stream/ship_result.h"
#include "stream/window.h"

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Its state is its own (replicas/fleet_internal.h, for replicas/fleet.c and
 * replicas/fleet_events.c). */
struct fleet;

/* n replicas of cfg and their window, which posts through link (whose post
 * must end in fleet_post); NULL when out of memory. */
struct fleet *fleet_new(const struct ship_config *cfg,
			const struct window_link *link);
void fleet_delete(struct fleet *f);

/* The window the replicas share: the shipper fills it. */
struct send_window *fleet_window(const struct fleet *f);

/* Connects every replica (each retried up to --retry times), places the
 * replacement when --truncate asks for one (input_size bytes, 0: not
 * known), checks that they agree, sizes and registers the ring. Returns 0
 * or a negative enum rs_errc, reported. */
int fleet_start(struct fleet *f, uint64_t input_size);

/* --truncate: the stream ended with every byte committed; each replica
 * holding them all is asked to make the replacement its log. 0 when every
 * live replica did; RS_E_DEGRADED when some did, else the first failure's
 * code. Says which replica kept its old content, and why. */
int fleet_switch(struct fleet *f);

/* Whether this stream writes a replacement (--truncate, not in place). */
bool fleet_replacing(const struct fleet *f);

/* Posts b to replica i. Non-zero (RS_E_LOST, or the post's code): its
 * link is lost. */
int fleet_post(struct fleet *f, unsigned i, struct window_batch *b);

/* Takes every completion and connection event that is there, without
 * waiting, and applies it to the window. */
void fleet_take_events(struct fleet *f);
/* Keepalives, the silent-link check, reconnect attempts that are due. */
void fleet_tick(struct fleet *f, uint64_t now_ns);
/* The ring is full and input waits: gives up lost replicas that pin it,
 * while the rule can do without them. True when one was. */
bool fleet_drop_laggards(struct fleet *f);

/* The log is full for the window: asks each replica whose pool holds it
 * back to archive and start over, once nothing is in flight to it. True
 * while that may make room (wait for it), false when a pool that holds it
 * back does not rotate: the log is full. */
bool fleet_make_room(struct fleet *f);

/* Adaptive waiting over every replica with batches in flight: polls their
 * completion queues while a confirmation is due soon. True when something
 * came. */
bool fleet_spin(struct fleet *f);
/* The descriptors of every connected replica; returns how many. */
nfds_t fleet_pollfds(const struct fleet *f, struct pollfd *pfd);
/* wait_ns, or less when a keepalive or a reconnect is due sooner. */
uint64_t fleet_timeout(const struct fleet *f, uint64_t now_ns,
		       uint64_t wait_ns);
/* Around the loop's wait: it waits up to wait_ns from now, and it runs
 * again; what it then did not run counts as no receiver's silence
 * (cli/stall.h). */
void fleet_waits(struct fleet *f, uint64_t now_ns, uint64_t wait_ns);
void fleet_woke(struct fleet *f, uint64_t now_ns);

/* The code of a finished stream: rc; when the window ended with fewer
 * replicas than the rule needs, the code of the last one given up
 * (RS_E_LOST when none was); RS_E_DEGRADED when what was committed is not
 * on every replica. Says which replica stopped where. */
int fleet_finish(const struct fleet *f, int rc);
/* For --progress with several replicas: each one's bytes and state. */
void fleet_progress(const struct fleet *f, char *buf, size_t len);
/* What the stream did, once it is over (the stats are the caller's). */
void fleet_report(const struct fleet *f, struct ship_result *result);

#endif
