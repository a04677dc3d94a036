#include "shipper.h"

#include "cli/exit_code.h"
#include "cli/log.h"
#include "error.h"
#include "replica.h"
#include "window.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SHIP_WAIT_MS 1000 /* longest sleep: then look at the clock */
#define SHIP_FOLLOW_MS 20 /* --follow at the end: look again after */
#define SHIP_BACKOFF_FIRST_MS 100
#define SHIP_BACKOFF_MAX_MS 5000

struct shipper {
	const struct ship_config *cfg;
	struct send_input *in;
	struct replica r;
	uint64_t log_start; /* the pool's data range */
	struct send_window w;
	struct send_stats *stats;
	struct send_progress progress;
	uint64_t last_input_ns;		/* for the idle flush */
	uint64_t input_paused_until_ns; /* --follow at the end of the file */
	int rc; /* the exit code once the window is done */
};

static const struct rs_accept_info *grant_of(const struct shipper *s)
{
	return replica_grant(&s->r);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, 0);
}

/* ---- posting a batch: the window's link ---- */

static int link_post(void *ctx, struct window_batch *b)
{
	struct shipper *s = ctx;
	b->posted_ns = send_stats_now_ns();
	send_stats_posted(s->stats, b->posted_ns);
	return replica_post(&s->r, &s->w, b);
}

static void link_committed(void *ctx, const struct window_batch *b)
{
	struct shipper *s = ctx;
	uint64_t now = send_stats_now_ns();
	send_stats_commit(s->stats, b->length, now - b->posted_ns);
	replica_confirmed(&s->r, now, now - b->posted_ns);
	send_progress_update(&s->progress, s->stats);
}

/* ---- connecting ---- */

/* First connection: pick the method and size the window from the grant. */
static int plan(struct shipper *s)
{
	const struct rs_accept_info *info = grant_of(s);
	struct rs_error err = {0};
	if (rs_method_choose(info->methods, s->cfg->method, &s->r.method,
			     &err)) {
		rs_err("%s", err.msg);
		return RS_EXIT_REFUSED;
	}
	uint64_t used = info->write_offset_value - info->start_offset;
	if (s->cfg->expect_offset && used != s->cfg->expected_used) {
		rs_err("the remote log changed since it was checked (it holds "
		       "%llu bytes, not %llu); run --resume again",
		       (unsigned long long)used,
		       (unsigned long long)s->cfg->expected_used);
		return RS_EXIT_NOT_PREFIX;
	}
	uint32_t batch_max = s->cfg->batch_size;
	if (s->r.method == RS_METHOD_STAGED &&
	    batch_max > info->staging_slot_size)
		batch_max = info->staging_slot_size;
	uint32_t depth = s->cfg->depth;
	if (depth == SHIP_DEPTH_AUTO) {
		depth = SHIP_INFLIGHT_BYTES / batch_max;
		if (depth < SHIP_DEPTH_MIN)
			depth = SHIP_DEPTH_MIN;
	}
	if (depth > info->credits)
		depth = info->credits;
	if (window_connected(&s->w, (uint16_t)depth, batch_max,
			     info->write_offset_value, info->end_offset)) {
		rs_err("cannot allocate %zu bytes of batch buffers",
		       (size_t)depth * batch_max);
		return RS_EXIT_USAGE;
	}
	memcpy(s->r.pool_uuid, info->pool_uuid, sizeof(s->r.pool_uuid));
	s->log_start = info->start_offset;
	rs_verbose("method %s, %u batches of %u bytes in flight, remote log "
		   "at %llu of %llu bytes",
		   rs_method_name(s->r.method), depth, batch_max,
		   (unsigned long long)used,
		   (unsigned long long)(info->end_offset - info->start_offset));
	return RS_EXIT_OK;
}

/* A later connection must still fit what is in flight. */
static int check_still_compatible(struct shipper *s)
{
	const struct rs_accept_info *info = grant_of(s);
	const char *why = 0;
	if (memcmp(info->pool_uuid, s->r.pool_uuid, sizeof(s->r.pool_uuid)))
		why = "it now serves a different pool";
	else if (!(info->methods & RS_METHOD_BIT(s->r.method)))
		why = "it no longer offers the method in use";
	else if (info->credits < s->w.depth)
		why = "it allows fewer batches in flight";
	else if (s->r.method == RS_METHOD_STAGED &&
		 info->staging_slot_size < s->w.batch_max)
		why = "its staging slots are smaller";
	else if (info->write_offset_value < s->w.committed_offset ||
		 info->write_offset_value > s->w.next_offset)
		why = "its log was changed by someone else";
	if (why) {
		rs_err("cannot resume on %s after reconnecting: %s; %llu input "
		       "bytes were committed",
		       s->r.label, why,
		       (unsigned long long)window_committed_input(&s->w));
		return RS_EXIT_REFUSED;
	}
	return RS_EXIT_OK;
}

static int link_up(struct shipper *s, bool first, bool *transient)
{
	uint16_t slots = first ? s->cfg->depth : s->w.depth;
	if (slots == SHIP_DEPTH_AUTO)
		slots =
		    SHIP_DEPTH_MAX; /* the window is sized after the grant */
	int rc = replica_connect(&s->r, first, slots, transient);
	if (!rc)
		rc = first ? plan(s) : check_still_compatible(s);
	if (!rc)
		rc = replica_register(&s->r, &s->w);
	if (!rc)
		replica_started(&s->r);
	return rc;
}

/* Connects, retrying a lost or busy receiver up to --retry times with
 * doubling back-off. */
static int connect_with_retry(struct shipper *s, bool first)
{
	unsigned backoff = SHIP_BACKOFF_FIRST_MS;
	for (unsigned attempt = 0;; attempt++) {
		bool transient = false;
		int rc = link_up(s, first, &transient);
		if (!rc || !transient || attempt >= s->cfg->retries ||
		    send_stop_requested)
			return rc;
		replica_disconnect(&s->r);
		rs_info("retrying in %u ms (%u of %u)", backoff, attempt + 1,
			s->cfg->retries);
		sleep_ms(backoff);
		backoff = backoff * 2 > SHIP_BACKOFF_MAX_MS
			      ? SHIP_BACKOFF_MAX_MS
			      : backoff * 2;
	}
}

/* RECONNECTING: connects again and hands the window the remote log's end,
 * so it resends exactly the uncommitted tail. Returns an exit code. */
static int recover(struct shipper *s)
{
	replica_disconnect(&s->r);
	uint64_t committed = window_committed_input(&s->w);
	if (s->cfg->retries == 0 || send_stop_requested) {
		rs_err("connection to %s lost after committing %llu input "
		       "bytes",
		       s->r.label, (unsigned long long)committed);
		return RS_EXIT_CONNECT;
	}
	rs_info("connection to %s lost after committing %llu input bytes; "
		"reconnecting",
		s->r.label, (unsigned long long)committed);
	int rc = connect_with_retry(s, false);
	if (rc) {
		rs_err("connection to %s lost after committing %llu input "
		       "bytes",
		       s->r.label, (unsigned long long)committed);
		return rc;
	}
	uint64_t remote = grant_of(s)->write_offset_value;
	window_reconnected(&s->w, remote);
	if (s->w.error == WINDOW_DIVERGED) {
		rs_err("cannot resume: the remote log ends inside a batch "
		       "(offset %llu); %llu input bytes were committed",
		       (unsigned long long)remote,
		       (unsigned long long)window_committed_input(&s->w));
		return RS_EXIT_REFUSED;
	}
	rs_info("reconnected to %s at %llu committed input bytes; sending %llu "
		"uncommitted bytes again",
		s->r.label, (unsigned long long)window_committed_input(&s->w),
		(unsigned long long)(s->w.next_offset - s->w.committed_offset));
	s->r.last_confirm_ns = send_stats_now_ns();
	return RS_EXIT_OK;
}

/* ---- events ---- */

/* What a replica reported, applied to the window. */
static void apply(struct shipper *s, const struct replica_report *rep)
{
	switch (rep->news) {
	case REPLICA_CONFIRMED:
		window_confirmed(&s->w, rep->seq, rep->offset);
		break;
	case REPLICA_LOST:
		window_lost(&s->w);
		break;
	case REPLICA_REFUSED:
		s->rc = RS_EXIT_REFUSED;
		window_stop(&s->w);
		break;
	case REPLICA_NOTHING:
		break;
	}
}

static bool streaming(const struct shipper *s)
{
	return s->w.state == WINDOW_STREAMING || s->w.state == WINDOW_DRAINING;
}

/* Takes every completion and connection event that is there, without
 * waiting. */
static void take_events(struct shipper *s)
{
	struct replica_report rep;
	while (streaming(s) && replica_next(&s->r, &s->w, &rep))
		apply(s, &rep);
}

/* True when the input has at least one more byte: the log is then full. */
static bool input_has_more(struct send_input *in)
{
	uint8_t probe;
	ssize_t n;
	while ((n = send_input_read(in, &probe, 1)) == 0 && in->follow &&
	       !send_stop_requested)
		sleep_ms(SHIP_FOLLOW_MS);
	return n > 0;
}

/* No room left in the remote log: the end, and an error if the input had
 * more (reported once the last batches are confirmed). */
static void log_full(struct shipper *s)
{
	window_input_end(&s->w, send_stats_now_ns());
	if (input_has_more(s->in))
		s->rc = RS_EXIT_LOG_FULL;
}

static bool readable(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	return poll(&pfd, 1, 0) > 0;
}

/* STREAMING: moves what the input has into the open batch. Returns true
 * when it did something, so the loop goes on without sleeping. */
static bool take_input(struct shipper *s, uint64_t now)
{
	uint32_t room;
	uint8_t *space = window_space(&s->w, &room);
	if (!space || now < s->input_paused_until_ns)
		return false;
	if (room == 0) {
		log_full(s);
		return true;
	}
	int fd = send_input_wait_fd(s->in);
	if (fd >= 0 && !readable(fd)) {
		/* The input is quiet. With nothing in flight, waiting for
		 * more gains nothing: commit what we have at once (a lone
		 * line of a pipe); else the next confirmation or the flush
		 * interval will. */
		if (s->w.fill > 0 && window_inflight(&s->w) == 0)
			window_flush(&s->w, now);
		return false;
	}
	ssize_t n = send_input_read(s->in, space, room);
	if (n > 0) {
		s->last_input_ns = now;
		window_filled(&s->w, (uint32_t)n, now);
	} else if (n < 0 && errno != EINTR) {
		rs_err("cannot read %s: %s", s->in->name, strerror(errno));
		s->rc = RS_EXIT_USAGE;
		window_input_end(&s->w, now);
	} else if (n == 0 && s->in->eof) {
		window_input_end(&s->w, now);
	} else if (n == 0) { /* --follow at the end: commit what we have */
		window_flush(&s->w, now);
		s->input_paused_until_ns = now + SHIP_FOLLOW_MS * 1000000ull;
	}
	return n != 0 || s->in->eof;
}

/* The idle flush, keepalives, the dead-receiver check, a stop request. */
static void check_timers(struct shipper *s, uint64_t now)
{
	if (send_stop_requested && s->w.state == WINDOW_STREAMING)
		window_input_end(&s->w, now);
	uint64_t idle = (uint64_t)s->cfg->flush_interval_ms * 1000000ull;
	if (s->w.fill > 0 && now - s->last_input_ns >= idle)
		window_flush(&s->w, now);
	if (!streaming(s))
		return;
	if (replica_keepalive_due(&s->r, &s->w, now) &&
	    replica_send_keepalive(&s->r, now))
		window_lost(&s->w);
	/* A silent link (a cable pulled, a host gone) reports no error for a
	 * long time: not hearing back within the peer timeout counts as
	 * lost, as the receiver counts us. */
	uint64_t since = replica_oldest_unanswered(&s->r, &s->w);
	if (since && now > since && now - since >= s->r.peer_timeout_ns) {
		rs_verbose("no answer from the receiver for %llu ms",
			   (unsigned long long)((now - since) / 1000000ull));
		window_lost(&s->w);
	}
}

/* Milliseconds until the next timer, at most SHIP_WAIT_MS. */
static int next_timeout(const struct shipper *s, uint64_t now)
{
	uint64_t wait = SHIP_WAIT_MS * 1000000ull;
	uint64_t idle = (uint64_t)s->cfg->flush_interval_ms * 1000000ull;
	if (s->w.fill > 0) {
		uint64_t due = s->last_input_ns + idle;
		wait = due > now && due - now < wait ? due - now : 0;
	}
	if (s->input_paused_until_ns > now &&
	    s->input_paused_until_ns - now < wait)
		wait = s->input_paused_until_ns - now;
	uint64_t ka = replica_keepalive_at(&s->r, &s->w);
	if (ka > now && ka - now < wait)
		wait = ka - now;
	return s->cfg->busy_poll ? 0 : (int)((wait + 999999) / 1000000);
}

/* Sleeps until a completion, a connection event, input or a timer. */
static void wait_for_event(struct shipper *s, uint64_t now)
{
	struct replica_report rep;
	if (replica_spin(&s->r, &s->w, &rep)) {
		apply(s, &rep);
		return;
	}
	struct pollfd pfd[3];
	int comp_fd, cm_fd;
	replica_fds(&s->r, &comp_fd, &cm_fd);
	pfd[0] = (struct pollfd){.fd = comp_fd, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = cm_fd, .events = POLLIN};
	nfds_t n = 2;
	uint32_t room;
	int in_fd = send_input_wait_fd(s->in);
	if (window_space(&s->w, &room) && in_fd >= 0 &&
	    now >= s->input_paused_until_ns)
		pfd[n++] = (struct pollfd){.fd = in_fd, .events = POLLIN};
	poll(pfd, n, next_timeout(s, now));
}

static void stream(struct shipper *s)
{
	while (s->w.state != WINDOW_DONE) {
		if (s->w.state == WINDOW_RECONNECTING) {
			int rc = recover(s);
			if (rc) {
				s->rc = rc;
				window_stop(&s->w);
			}
			continue;
		}
		take_events(s);
		uint64_t now = send_stats_now_ns();
		check_timers(s, now);
		if (s->w.state == WINDOW_STREAMING && take_input(s, now))
			continue;
		if (streaming(s))
			wait_for_event(s, now);
	}
}

/* The exit code of a finished stream, reporting what went wrong. */
static int finish(struct shipper *s)
{
	uint64_t committed = window_committed_input(&s->w);
	if (s->w.error == WINDOW_OUT_OF_ORDER) {
		rs_err("the receiver confirmed a commit out of order after "
		       "%llu input bytes; stopping",
		       (unsigned long long)committed);
		return RS_EXIT_REFUSED;
	}
	if (s->rc == RS_EXIT_LOG_FULL)
		rs_err("remote log full: committed %llu input bytes; the rest "
		       "did not fit (rewind it with --truncate or use a larger "
		       "pool)",
		       (unsigned long long)committed);
	return s->rc;
}

int ship_run(const struct ship_config *cfg, struct send_input *in,
	     struct ship_result *result)
{
	struct shipper s;
	memset(&s, 0, sizeof(s));
	s.cfg = cfg;
	replica_init(&s.r, cfg, &cfg->remote);
	s.in = in;
	s.stats = &result->stats;
	struct window_link link = {&s, link_post, link_committed};
	window_init(&s.w, &link);
	send_stats_start(s.stats);
	send_progress_init(&s.progress, cfg->progress, cfg->progress_forced);
	int rc = connect_with_retry(&s, true);
	if (!rc) {
		stream(&s);
		rc = finish(&s);
	}
	send_progress_finish(&s.progress, s.stats);
	result->method = s.r.method;
	result->committed = window_committed_input(&s.w);
	result->first_offset = s.w.first_offset;
	if (s.w.ring) {
		result->log_used = s.w.committed_offset - s.log_start;
		result->log_size = s.w.end_offset - s.log_start;
	}
	replica_fini(&s.r);
	window_fini(&s.w);
	return rc;
}
