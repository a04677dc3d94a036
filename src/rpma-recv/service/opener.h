/* The threads that open a receiver's logs, so that the loop answers
 * every connection request while a pool takes seconds to make or map on a
 * loaded host ("starting: ask again in N ms"), instead of holding them
 * unread until the sender gives up. One thread per worker (at most
 * RECV_OPENER_THREADS_MAX), each opening one log at a time: a restart of a
 * thousand logs took 15 to 17 s of opens on one thread. The loop keeps the
 * order of the logs still to open (service/opening.c) and hands the opener
 * up to two per thread (recv_opener_depth): the next one is in hand when
 * an open ends, so no thread waits for the loop's turn (a thousand such
 * waits slowed a restart by seconds); results come back as the opens end,
 * and the descriptor is readable while one waits. */
#ifndef RECV_SERVICE_OPENER_H
#define RECV_SERVICE_OPENER_H

#include "error.h"
#include "settings/settings.h"

#include <stdbool.h>

struct recv_log_worker;
struct recv_opener;

/* Threads at most, and logs handed over and not taken back at most. */
#define RECV_OPENER_THREADS_MAX 4
#define RECV_OPENER_DEPTH_MAX (2 * RECV_OPENER_THREADS_MAX)

/* Opens the log s on one of the opener's threads (several logs at once,
 * each on its own): 0 with *out, or an rs_errc with err. */
typedef int (*recv_open_fn)(void *ctx, const struct recv_log_settings *s,
			    struct recv_log_worker **out, struct rs_error *err);

/* What became of the log handed over. */
struct recv_opened {
	const struct recv_log_settings *settings;
	struct recv_log_worker *worker; /* NULL when it failed */
	int rc;
	struct rs_error err;
};

/* Starts nthreads threads (1 to RECV_OPENER_THREADS_MAX; more are
 * fewer), which open with fn(ctx, ...). 0, or an rs_errc with err. */
int recv_opener_start(recv_open_fn fn, void *ctx, unsigned nthreads,
		      struct recv_opener **out, struct rs_error *err);

/* Logs it takes in hand at once: two per thread. */
unsigned recv_opener_depth(const struct recv_opener *o);

/* The log it has had longest in hand, opening or next to open, or NULL
 * when none is to open. */
const struct recv_log_settings *recv_opener_busy_with(struct recv_opener *o);

/* Whether the log of that name ("": any) is being opened now. */
bool recv_opener_opening(struct recv_opener *o, const char *name);

/* How many logs it has in hand: to open, or opened and not taken. */
unsigned recv_opener_in_hand(struct recv_opener *o);

/* Whether the log of that name ("": any) is in its hands. */
bool recv_opener_holds(struct recv_opener *o, const char *name);

/* Hands over s to open, after the others in hand (ignored when
 * recv_opener_depth are in hand). */
void recv_opener_open(struct recv_opener *o, const struct recv_log_settings *s);

/* The oldest result not taken: true and *out, false when none waits. */
bool recv_opener_take(struct recv_opener *o, struct recv_opened *out);

/* Readable while a result waits to be taken. */
int recv_opener_fd(const struct recv_opener *o);

/* Stops the threads once the opens under way ended: the results not
 * taken in left (how many returned); the logs not opened yet are
 * dropped. */
unsigned recv_opener_stop(struct recv_opener **o,
			  struct recv_opened left[RECV_OPENER_DEPTH_MAX]);

#endif
