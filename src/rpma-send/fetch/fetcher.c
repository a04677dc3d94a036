#include "fetch/fetcher.h"

#include "cli/log.h"
#include "common/stats.h"
#include "common/stop.h"
#include "connect/backoff.h"
#include "error.h"
#include "fetch/link.h"
#include "stream/progress.h"

#include <stdio.h>

struct fetcher {
	const struct fetch_config *cfg;
	const struct fetch_sink *sink;
	struct fetch_link *link;
	bool started;	  /* the first state is known */
	uint64_t content; /* the content being read */
	uint64_t pos;	  /* the next log position to write */
	uint64_t stop;	  /* not --follow: the end when it started */
	/* The last round read in place, where the receiver ends a reader's
	 * key when the pool goes back (it started over): a loss then is read
	 * again at once, through the ring, once per position (in_place_at). */
	bool in_place;
	uint64_t in_place_at;
	struct fetch_log st;
	struct send_stats stats;
	struct send_progress progress;
	char label[RS_TARGET_LABEL_SIZE];
};

/* What a state means for the read; reported when it ends it. */
static int judge(struct fetcher *f)
{
	switch (fetch_check(&f->st, f->content, f->pos)) {
	case FETCH_GO:
		return 0;
	case FETCH_REPLACED:
		rs_err("the log on %s was replaced while it was read (after "
		       "%llu bytes of it); fetch it again",
		       f->label, (unsigned long long)f->pos);
		break;
	case FETCH_GONE:
		rs_err("the log on %s no longer holds byte %llu: its archive "
		       "keeps only from %llu on",
		       f->label, (unsigned long long)f->pos,
		       (unsigned long long)f->st.first);
		break;
	case FETCH_SHORT:
		rs_err("the log on %s holds %llu bytes, fewer than the %llu to "
		       "start from",
		       f->label, (unsigned long long)f->st.end,
		       (unsigned long long)f->pos);
		break;
	}
	return RS_E_DIVERGED;
}

/* The first state: where to start, where to stop. */
static int begin(struct fetcher *f)
{
	f->started = true;
	f->content = f->st.content;
	f->pos = fetch_start_at(&f->cfg->start, &f->st);
	f->stop = f->cfg->follow ? UINT64_MAX : f->st.end;
	if (f->pos < f->st.first && !f->cfg->start.at_end &&
	    f->cfg->start.from == 0) {
		rs_warn("the log on %s starts at byte %llu: what came before "
			"was removed from its archive",
			f->label, (unsigned long long)f->st.first);
		f->pos = f->st.first;
	}
	return judge(f);
}

#define FETCH_DONE 1 /* step(): the last byte asked for is written */

/* Bytes read straight from the pool stand only if the pool did not start
 * over meanwhile: the state after the round says. */
static int written(struct fetcher *f, const uint8_t *bytes, uint64_t len,
		   bool from_pool)
{
	if (from_pool) {
		struct fetch_log after;
		int rc = fetch_link_state(f->link, f->pos, false, &after);
		if (rc)
			return rc;
		bool stands = fetch_still_stands(&f->st, &after);
		f->st = after;
		if (!stands) /* read them again, from where they are now */
			return judge(f);
	}
	int rc = f->sink->write(f->sink->ctx, bytes, len);
	if (rc)
		return rc;
	f->pos += len;
	uint64_t now = send_stats_now_ns();
	send_stats_commit(&f->stats, len, 0, now);
	if (send_progress_due(&f->progress, now))
		send_progress_draw(&f->progress, &f->stats, "");
	return 0;
}

/* A round read and written, or a wait for the log to grow. */
static int step(struct fetcher *f)
{
	if (send_stop_requested)
		return RS_E_INTERRUPTED;
	uint64_t end = f->st.end < f->stop ? f->st.end : f->stop;
	if (f->pos >= end) {
		if (!f->cfg->follow)
			return FETCH_DONE;
		int rc = fetch_link_state(f->link, f->pos, true, &f->st);
		return rc ? rc : judge(f);
	}
	const uint8_t *bytes;
	uint64_t len;
	bool from_pool;
	int rc = fetch_link_round(f->link, &f->st, f->pos, end, &bytes, &len,
				  &from_pool);
	f->in_place = from_pool;
	return rc ? rc : written(f, bytes, len, from_pool);
}

static int connect_and_look(struct fetcher *f)
{
	int rc = fetch_link_open(&f->link, f->cfg);
	if (!rc)
		rc = fetch_link_state(f->link, f->pos, false, &f->st);
	if (!rc)
		rc = f->started ? judge(f) : begin(f);
	return rc;
}

/* Reads until done or a failure; FETCH_DONE, or the failure's code. */
static int run_connected(struct fetcher *f)
{
	int rc = f->link ? 0 : connect_and_look(f);
	while (!rc)
		rc = step(f);
	return rc;
}

/* rc is the link's failure: the connection lost or not made for now. */
static bool link_failure(int rc)
{
	return rc == RS_E_LOST || RS_ERRC_TRANSIENT(rc);
}

/* A connection lost while it read the pool in place may be the receiver's
 * doing: a rotation ends readers' keys (their next state would have said
 * the pool started over). Read again at once, once per position, without
 * counting against --retry. */
static bool lost_reading_in_place(struct fetcher *f, int rc)
{
	if (rc != RS_E_LOST || !f->in_place || f->in_place_at == f->pos)
		return false;
	f->in_place_at = f->pos;
	rs_verbose("%s: lost while reading its pool in place (the pool may "
		   "have started over); reading again at byte %llu",
		   f->label, (unsigned long long)f->pos);
	return !send_stop_requested;
}

/* Whether to connect again after rc: --retry's attempts are counted from
 * the last byte written. */
static bool again(struct fetcher *f, int rc, unsigned *tries,
		  uint64_t *pos_then, unsigned *backoff)
{
	if (f->pos != *pos_then) {
		*tries = 0;
		*backoff = SEND_BACKOFF_FIRST_MS;
		*pos_then = f->pos;
	}
	if (!link_failure(rc) || *tries >= f->cfg->retries ||
	    send_stop_requested)
		return false;
	(*tries)++;
	rs_info("reading %s again in %u ms (%u of %u), at byte %llu", f->label,
		*backoff, *tries, f->cfg->retries, (unsigned long long)f->pos);
	send_stats_sleep_ms(*backoff);
	*backoff = send_backoff_next(*backoff);
	return !send_stop_requested;
}

int fetch_run(const struct fetch_config *cfg, const struct fetch_sink *sink,
	      struct fetch_result *result)
{
	struct fetcher f = {
	    .cfg = cfg, .sink = sink, .in_place_at = UINT64_MAX};
	rs_target_label(&cfg->remote, f.label, sizeof(f.label));
	send_stats_start(&f.stats);
	send_progress_init(&f.progress, cfg->progress, cfg->progress_forced);
	f.progress.what = "fetched";
	unsigned tries = 0, backoff = SEND_BACKOFF_FIRST_MS;
	uint64_t pos_then = 0;
	int rc;
	for (;;) {
		rc = run_connected(&f);
		if (lost_reading_in_place(&f, rc)) {
			fetch_link_close(&f.link);
			continue;
		}
		if (rc == RS_E_LOST)
			rs_info("connection to %s lost after fetching %llu "
				"bytes",
				f.label, (unsigned long long)f.stats.bytes);
		if (!again(&f, rc, &tries, &pos_then, &backoff))
			break;
		fetch_link_close(&f.link);
	}
	fetch_link_close(&f.link);
	/* A signal while it connects or waits to read again ends a run the
	 * link had cut: interrupted, not the link's failure (--follow's way
	 * to end, exit 0). */
	if (send_stop_requested && link_failure(rc))
		rc = RS_E_INTERRUPTED;
	if (rc == FETCH_DONE || (rc == RS_E_INTERRUPTED && cfg->follow))
		rc = 0;
	send_progress_finish(&f.progress, &f.stats, "");
	*result =
	    (struct fetch_result){.fetched = f.stats.bytes,
				  .at = f.pos,
				  .seconds = send_stats_elapsed(&f.stats)};
	return rc;
}
