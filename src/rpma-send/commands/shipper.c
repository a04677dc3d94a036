#include "commands/shipper.h"

#include "cli/log.h"
#include "common/stop.h"
#include "error.h"
#include "replicas/fleet.h"
#include "stream/progress.h"
#include "stream/window.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHIP_WAIT_MS 1000    /* longest sleep: then look at the clock */
#define SHIP_FULL_POLL_MS 20 /* a full log: look for more input after */

struct shipper {
	const struct ship_config *cfg;
	struct send_input *in;
	struct fleet *f;       /* the replicas and the window */
	struct send_window *w; /* the fleet's */
	struct send_stats *stats;
	struct send_progress progress;
	uint64_t last_input_ns;		/* for the idle flush */
	uint64_t input_paused_until_ns; /* --follow at the end of the file */
	uint64_t follow_look_ns; /* --follow: when it looks next anyway */
	/* --follow stopped by a signal: what the files hold is read first,
	 * rotated files without their grace period, until this time. */
	uint64_t drain_until_ns;
	int rc; /* the code once the window is done: an rs_errc */
};

/* ---- the window's link: posting to replicas, commits ---- */

static int link_post(void *ctx, unsigned i, struct window_batch *b)
{
	struct shipper *s = ctx;
	send_stats_posted(s->stats, b->posted_ns);
	return fleet_post(s->f, i, b);
}

static void link_committed(void *ctx, const struct window_batch *b)
{
	struct shipper *s = ctx;
	uint64_t now = send_stats_now_ns();
	send_stats_commit(s->stats, b->length, now - b->posted_ns, now);
	if (s->cfg->progress_commits)
		send_progress_commit_line(window_committed_input(s->w));
	else if (send_progress_due(&s->progress, now)) {
		char detail[256];
		fleet_progress(s->f, detail, sizeof(detail));
		send_progress_draw(&s->progress, s->stats, detail);
	}
}

/* ---- input ---- */

/* True when the input has at least one more byte: the log is then full. */
static bool input_has_more(struct send_input *in)
{
	uint8_t probe;
	ssize_t n;
	while ((n = send_input_read(in, &probe, 1)) == 0 && in->follow &&
	       !send_stop_requested)
		send_stats_sleep_ms(SHIP_FULL_POLL_MS);
	return n > 0;
}

/* No room left in the remote log: the end, and an error if the input had
 * more (reported once the last batches are confirmed). */
static void log_full(struct shipper *s)
{
	window_input_end(s->w, send_stats_now_ns());
	if (input_has_more(s->in))
		s->rc = RS_E_FULL;
}

static bool readable(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	return poll(&pfd, 1, 0) > 0;
}

/* A regular file always has something to say. */
static bool input_ready(const struct shipper *s)
{
	int fd = send_input_wait_fd(s->in);
	return fd < 0 || readable(fd);
}

/* --follow found nothing new: paused until its file may have changed (it
 * wakes us) or it wants to look again. */
static bool input_paused(const struct shipper *s, uint64_t now)
{
	if (now >= s->input_paused_until_ns)
		return false;
	int fd = send_input_wake_fd(s->in);
	return fd < 0 || !readable(fd);
}

/* --follow learns of rotations as they happen, also while the window is
 * full and nothing is read (the receiver slow or away): each file that
 * comes to the name is opened then, and read in its turn whatever its
 * name has become. Something changed: reading is tried again at once. */
static void watch_input(struct shipper *s, uint64_t now)
{
	if (!s->in->follow)
		return;
	int fd = send_input_wake_fd(s->in);
	bool woken = fd >= 0 && readable(fd);
	if (!woken && now < s->follow_look_ns)
		return;
	send_input_notice(s->in);
	s->follow_look_ns = now + send_input_recheck_ms(s->in) * 1000000ull;
	if (woken)
		s->input_paused_until_ns = 0;
}

/* Reads what the input has into the open batch. */
static void read_input(struct shipper *s, uint8_t *space, uint32_t room,
		       uint64_t now)
{
	struct send_window *w = s->w;
	ssize_t n = send_input_read(s->in, space, room);
	if (n > 0) {
		s->last_input_ns = now;
		window_filled(w, (uint32_t)n, now);
	} else if (n < 0 && errno != EINTR) {
		rs_err("cannot read %s: %s", s->in->name, strerror(errno));
		s->rc = RS_E_IO;
		window_input_end(w, now);
	} else if (n == 0 && s->in->eof) {
		window_input_end(w, now);
	} else if (n == 0 && s->drain_until_ns) { /* stopped, all read */
		window_input_end(w, now);
	} else if (n == 0) { /* --follow at the end: commit what we have */
		window_flush(w, now);
		s->input_paused_until_ns =
		    now + send_input_recheck_ms(s->in) * 1000000ull;
	}
}

/* STREAMING: moves what the input has into the open batch. Returns true
 * when it did something, so the loop goes on without sleeping. */
static bool take_input(struct shipper *s, uint64_t now)
{
	struct send_window *w = s->w;
	uint32_t room;
	uint8_t *space = window_space(w, &room);
	/* The ring is full: a lost replica may pin it. */
	if (!space && window_ring_pinned(w) && input_ready(s))
		return fleet_drop_laggards(s->f);
	if (!space || input_paused(s, now))
		return false;
	if (room == 0) {
		/* A pool that rotates is archived and started over: the
		 * input waits meanwhile (back-pressure). */
		if (fleet_make_room(s->f))
			return false;
		log_full(s);
		return true;
	}
	int fd = send_input_wait_fd(s->in);
	if (fd >= 0 && !readable(fd)) {
		/* The input is quiet. With nothing in flight, waiting for
		 * more gains nothing: commit what we have at once (a lone
		 * line of a pipe); else the next confirmation or the flush
		 * interval will. */
		if (window_fill(w) > 0 && window_inflight(w) == 0)
			window_flush(w, now);
		return false;
	}
	read_input(s, space, room, now);
	return true;
}

/* ---- the loop ---- */

/* The idle flush, a stop request, and the replicas' own timers. */
static void check_timers(struct shipper *s, uint64_t now)
{
	struct send_window *w = s->w;
	if (send_stop_requested && window_state(w) == WINDOW_STREAMING &&
	    s->in->follow && !s->drain_until_ns) {
		/* Lines the files hold already are not left behind: a
		 * rotated file's successor is read at once. */
		send_input_stop_waiting(s->in);
		s->drain_until_ns =
		    now + (uint64_t)s->cfg->stop_wait_ms * 1000000ull + 1;
		s->input_paused_until_ns = 0;
	} else if (send_stop_requested && window_state(w) == WINDOW_STREAMING &&
		   (!s->in->follow || now >= s->drain_until_ns)) {
		window_input_end(w, now);
		/* A pipe or --follow ends so by design; a FILE cut short is
		 * not a finished send. */
		if (s->in->is_regular && !s->in->follow && !s->in->eof &&
		    !s->rc)
			s->rc = RS_E_INTERRUPTED;
	}
	uint64_t idle = (uint64_t)s->cfg->flush_interval_ms * 1000000ull;
	if (window_fill(w) > 0 && now - s->last_input_ns >= idle)
		window_flush(w, now);
	if (window_streaming(w))
		fleet_tick(s->f, now);
}

/* Nanoseconds until the next timer (flush, --follow), at most
 * SHIP_WAIT_MS; the replicas' timers are the fleet's. */
static uint64_t input_timeout(const struct shipper *s, uint64_t now)
{
	uint64_t wait = SHIP_WAIT_MS * 1000000ull;
	uint64_t idle = (uint64_t)s->cfg->flush_interval_ms * 1000000ull;
	if (window_fill(s->w) > 0) {
		uint64_t due = s->last_input_ns + idle;
		wait = due > now && due - now < wait ? due - now : 0;
	}
	if (s->input_paused_until_ns > now &&
	    s->input_paused_until_ns - now < wait)
		wait = s->input_paused_until_ns - now;
	if (s->in->follow && s->follow_look_ns > now &&
	    s->follow_look_ns - now < wait)
		wait = s->follow_look_ns - now;
	return wait;
}

/* Sleeps until a completion, a connection event, input or a timer. */
static void wait_for_event(struct shipper *s, uint64_t now)
{
	if (fleet_spin(s->f))
		return;
	struct pollfd pfd[2 * SEND_REPLICAS_MAX + 1];
	nfds_t n = fleet_pollfds(s->f, pfd);
	uint32_t room;
	int in_fd = send_input_wait_fd(s->in);
	bool has_room = window_space(s->w, &room) && room > 0;
	/* --follow's events are taken with or without room. */
	if (s->in->follow && (now < s->input_paused_until_ns || !has_room))
		in_fd = send_input_wake_fd(s->in);
	if ((has_room || s->in->follow) && in_fd >= 0)
		pfd[n++] = (struct pollfd){.fd = in_fd, .events = POLLIN};
	uint64_t wait = fleet_timeout(s->f, now, input_timeout(s, now));
	int ms = s->cfg->busy_poll ? 0 : (int)((wait + 999999) / 1000000);
	fleet_waits(s->f, now, (uint64_t)ms * 1000000ull);
	poll(pfd, n, ms);
	fleet_woke(s->f, send_stats_now_ns());
}

static void stream(struct shipper *s)
{
	while (window_state(s->w) != WINDOW_DONE) {
		fleet_take_events(s->f);
		uint64_t now = send_stats_now_ns();
		watch_input(s, now);
		check_timers(s, now);
		if (window_state(s->w) == WINDOW_STREAMING &&
		    take_input(s, now))
			continue;
		if (window_streaming(s->w))
			wait_for_event(s, now);
	}
}

/* -f: what went before it was read, and what the files held at a stop
 * signal that was not read by the end of --stop-wait, are said at the
 * end, whatever -q, and are the run's status when nothing else went
 * wrong. */
static int said_losses(struct shipper *s, int rc)
{
	char line[2048];
	if (send_input_losses(s->in, line, sizeof(line))) {
		rs_err("%s", line);
		rc = rc ? rc : RS_E_INPUT_LOST;
	}
	if (s->drain_until_ns && send_input_left(s->in, line, sizeof(line))) {
		rs_err("%s; rpma-send --resume -f ships them while the files "
		       "keep them",
		       line);
		rc = rc ? rc : RS_E_INPUT_LEFT;
	}
	return rc;
}

/* The code of a finished stream, reporting what went wrong. A
 * replacement becomes the log only when the whole input is committed. */
static int finish(struct shipper *s)
{
	uint64_t committed = window_committed_input(s->w);
	bool replacing = fleet_replacing(s->f);
	int rc = s->rc;
	if (rc == RS_E_FULL && replacing)
		rs_err("remote log full: the replacement did not fit after "
		       "%llu input bytes; the log keeps its previous content "
		       "(give it an archive, or a larger pool)",
		       (unsigned long long)committed);
	else if (rc == RS_E_FULL)
		rs_err("remote log full: committed %llu input bytes; the rest "
		       "did not fit (rewind it with --truncate or use a larger "
		       "pool)",
		       (unsigned long long)committed);
	rc = fleet_finish(s->f, rc);
	/* Committed on the replicas the rule asks for: those that hold it
	 * all switch it in. */
	bool whole = !rc || rc == RS_E_DEGRADED;
	if (whole && replacing && window_error(s->w) == WINDOW_OK) {
		int sw = fleet_switch(s->f);
		if (sw) /* one that kept its old content says which */
			rc = sw;
	} else if (rc && replacing && rc != RS_E_FULL)
		rs_err("the log keeps its previous content: --truncate "
		       "replaces it only once every byte is committed");
	return said_losses(s, rc);
}

int ship_run(const struct ship_config *cfg, struct send_input *in,
	     struct ship_result *result)
{
	struct shipper *s = calloc(1, sizeof(*s));
	struct window_link link = {s, link_post, link_committed};
	if (s)
		s->f = fleet_new(cfg, &link);
	if (!s || !s->f) {
		rs_err("out of memory");
		free(s);
		return RS_E_NOMEM;
	}
	s->w = fleet_window(s->f);
	s->cfg = cfg;
	s->in = in;
	s->stats = &result->stats;
	send_stats_start(s->stats);
	send_progress_init(&s->progress,
			   cfg->progress && !cfg->progress_commits,
			   cfg->progress_forced);
	int rc = fleet_start(s->f, send_input_size(in));
	if (!rc) {
		stream(s);
		rc = finish(s);
	}
	char detail[256];
	fleet_progress(s->f, detail, sizeof(detail));
	send_progress_finish(&s->progress, s->stats, detail);
	fleet_report(s->f, result);
	fleet_delete(s->f);
	free(s);
	return rc;
}
