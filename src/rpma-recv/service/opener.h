/* The thread that opens a receiver's logs, one at a time, so that the
 * loop answers every connection request while a pool takes seconds to
 * make or map on a loaded host ("starting: ask again in N ms"), instead
 * of holding them unread until the sender gives up. The loop keeps the
 * order of the logs still to open (service/opening.c) and hands the
 * opener one at a time; the opener's descriptor is readable when it is
 * done with it. */
#ifndef RECV_SERVICE_OPENER_H
#define RECV_SERVICE_OPENER_H

#include "error.h"
#include "settings/settings.h"

#include <stdbool.h>

struct recv_log_worker;
struct recv_opener;

/* Opens the log s on the opener's thread: 0 with *out, or an rs_errc
 * with err. */
typedef int (*recv_open_fn)(void *ctx, const struct recv_log_settings *s,
			    struct recv_log_worker **out, struct rs_error *err);

/* What became of the log handed over. */
struct recv_opened {
	const struct recv_log_settings *settings;
	struct recv_log_worker *worker; /* NULL when it failed */
	int rc;
	struct rs_error err;
};

/* Starts the thread, which opens with fn(ctx, ...). 0, or an rs_errc
 * with err. */
int recv_opener_start(recv_open_fn fn, void *ctx, struct recv_opener **out,
		      struct rs_error *err);

/* The log it opens now, or NULL when it has none (its result taken). */
const struct recv_log_settings *recv_opener_busy_with(struct recv_opener *o);

/* Hands over s to open (the opener must have none). */
void recv_opener_open(struct recv_opener *o, const struct recv_log_settings *s);

/* The result of the open handed over, once it ended: true and *out. */
bool recv_opener_take(struct recv_opener *o, struct recv_opened *out);

/* Readable while a result waits to be taken. */
int recv_opener_fd(const struct recv_opener *o);

/* Stops the thread once the open under way ended; its result, if not
 * taken, in *left (left->worker NULL when none). */
void recv_opener_stop(struct recv_opener **o, struct recv_opened *left);

#endif
