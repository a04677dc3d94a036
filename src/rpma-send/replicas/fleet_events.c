/* The fleet while streaming: what each replica reports, its timers, and
 * its link lost and taken up again on its own clock. */
#include "replicas/fleet_internal.h"

#include "cli/log.h"
#include "common/stop.h"
#include "error.h"
#include "proto/message.h"

static enum replica_state state_of(const struct fleet *f,
				   const struct replica *r)
{
	return quorum_replica_state(window_quorum(f->w), replica_index(r));
}

static struct fleet_retry *retry_of(struct fleet *f, const struct replica *r)
{
	return &f->retry[replica_index(r)];
}

static unsigned long long input_of(const struct fleet *f,
				   const struct replica *r)
{
	return (unsigned long long)window_replica_input(f->w, replica_index(r));
}

int fleet_post(struct fleet *f, unsigned i, struct window_batch *b)
{
	struct replica *r = f->replicas[i];
	return replica_connected(r) ? replica_post(r, f->w, b) : RS_E_LOST;
}

/* ---- giving up, losing, reconnecting ---- */

static bool counted(const struct fleet *f, const struct replica *r)
{
	enum replica_state s = state_of(f, r);
	return s != REPLICA_DROPPED;
}

/* The window ends where the smallest replica's pool does. */
static void refresh_end(struct fleet *f)
{
	uint64_t end = UINT64_MAX;
	for (unsigned i = 0; i < f->n; i++) {
		const struct replica *r = f->replicas[i];
		if (counted(f, r) && replica_connected(r) &&
		    replica_log_end(r) < end)
			end = replica_log_end(r);
	}
	if (end != UINT64_MAX)
		window_set_end(f->w, end);
}

/* For good, for the reason code (reported); the stream goes on if it
 * can. */
static void give_up(struct fleet *f, struct replica *r, int code)
{
	replica_disconnect(r);
	f->failure = code;
	window_drop(f->w, replica_index(r));
	/* Dropped while its pool held the window's end (its rebase was
	 * out): the others' started-over pools say where it ends now. */
	refresh_end(f);
	const struct quorum *q = window_quorum(f->w);
	if (f->n > 1 && quorum_viable(q))
		rs_warn("going on without %s: %u of %u replicas left, %u "
			"needed",
			replica_label(r), quorum_live_count(q), f->n,
			quorum_needed(q));
}

/* Its link is gone and will not be taken up again. The message ends
 * with ": why" when the loss's cause is known. */
static void give_up_link(struct fleet *f, struct replica *r, int code)
{
	const char *why = replica_lost_why(r);
	rs_err("connection to %s lost after committing %llu input bytes%s%s",
	       replica_label(r), input_of(f, r), *why ? ": " : "", why);
	give_up(f, r, code);
}

void fleet_lose(struct fleet *f, struct replica *r, uint64_t now)
{
	replica_disconnect(r);
	window_lost(f->w, replica_index(r));
	if (f->cfg->retries == 0 || send_stop_requested) {
		give_up_link(f, r, RS_E_LOST);
		return;
	}
	const char *why = replica_lost_why(r);
	rs_info("connection to %s lost after committing %llu input bytes%s%s; "
		"reconnecting",
		replica_label(r), input_of(f, r), *why ? ": " : "", why);
	*retry_of(f, r) = (struct fleet_retry){
	    .attempts = 0, .backoff_ms = SEND_BACKOFF_FIRST_MS, .at_ns = now};
}

/* A later connection must still fit the stream: same pool, the method in
 * use, room for the window. */
static int check_still_compatible(struct fleet *f, struct replica *r)
{
	struct rs_error err = {0};
	int rc = replica_check_fit(r, window_depth(f->w),
				   window_batch_max(f->w), &err);
	if (rc)
		rs_err("cannot resume on %s after reconnecting: %s; %llu input "
		       "bytes were committed",
		       replica_label(r), err.msg, input_of(f, r));
	return rc;
}

/* Connected again: the window posts it everything its log lacks. A log
 * the stream cannot carry on in is a refusal (RS_E_REJECTED, exit 5), as
 * it always was; RS_E_DIVERGED (exit 6) is what the checks at the start
 * find. */
static void rejoin(struct fleet *f, struct replica *r)
{
	uint64_t remote = replica_granted_end(r);
	unsigned long long had = input_of(f, r);
	unsigned long long at =
	    (unsigned long long)(remote - window_first_offset(f->w));
	switch (window_rejoined(f->w, replica_index(r), remote)) {
	case WINDOW_REJOINED:
		rs_info(
		    "reconnected to %s at %llu committed input bytes; "
		    "sending %llu uncommitted bytes again",
		    replica_label(r), at,
		    (unsigned long long)(window_next_offset(f->w) - remote));
		return;
	case WINDOW_SHRUNK:
		rs_err("cannot resume on %s after reconnecting: its log was "
		       "changed by someone else (it holds %llu input bytes of "
		       "the %llu it committed)",
		       replica_label(r), at, had);
		give_up(f, r, RS_E_REJECTED);
		return;
	case WINDOW_DIVERGED:
		rs_err("cannot resume on %s: the remote log ends inside a "
		       "batch or past what was sent (at %llu input bytes); "
		       "%llu input bytes were committed",
		       replica_label(r), at, had);
		give_up(f, r, RS_E_REJECTED);
		return;
	case WINDOW_GAP_GONE:
		rs_err("cannot catch %s up: its log ends at %llu input bytes "
		       "and the ring no longer holds what follows",
		       replica_label(r), at);
		give_up(f, r, RS_E_LOST);
		return;
	}
}

/* A connection attempt blocks the loop: while other replicas stream, it
 * waits at most FLEET_RECONNECT_WAIT_MS (a receiver that is up answers in
 * milliseconds), so that a silent host holds them up no longer. */
static int reconnect_timeout(const struct fleet *f)
{
	int t = f->cfg->connect_timeout_ms;
	if (quorum_active_count(window_quorum(f->w)) > 0 &&
	    t > FLEET_RECONNECT_WAIT_MS)
		t = FLEET_RECONNECT_WAIT_MS;
	return t;
}

bool fleet_replacing(const struct fleet *f)
{
	return f->cfg->truncate && !f->cfg->truncate_in_place;
}

/* Back on a new connection while replacing the log: the replacement must
 * still be there (a receiver that restarted forgot it). */
static int carry_on_replacing(struct fleet *f, struct replica *r)
{
	struct rs_msg reply;
	if (!fleet_replacing(f))
		return 0;
	int rc = replica_replace(r, true, 0, &reply);
	if (rc || reply.status == RS_MSG_OK)
		return rc;
	rs_err("%s no longer holds the replacement (%s); the log keeps its "
	       "previous content",
	       replica_label(r), rs_msg_status_str(reply.status));
	return RS_E_REJECTED;
}

/* Connects r again; one more try later when it fails, under --retry, or
 * when the receiver says when (not counted: the others stream on
 * meanwhile, this loop never sleeps on a hint). */
static void reconnect(struct fleet *f, struct replica *r, uint64_t now)
{
	struct fleet_retry *retry = retry_of(f, r);
	int rc = send_stop_requested
		     ? RS_E_INTERRUPTED
		     : replica_connect(r, false, window_depth(f->w),
				       reconnect_timeout(f), &retry->hinted);
	if (!rc)
		rc = check_still_compatible(f, r);
	if (!rc)
		rc = replica_register(r, f->w);
	if (!rc)
		rc = carry_on_replacing(f, r);
	if (!rc)
		rc = replica_started(r);
	if (!rc) {
		rejoin(f, r);
		refresh_end(f);
		return;
	}
	replica_disconnect(r);
	if (retry->hinted.next_ms && !send_stop_requested) {
		retry->at_ns = now + retry->hinted.next_ms * 1000000ull;
		return;
	}
	if (RS_ERRC_TRANSIENT(rc) && retry->attempts < f->cfg->retries &&
	    !send_stop_requested) {
		retry->attempts++;
		rs_info("retrying %s in %u ms (%u of %u)", replica_label(r),
			retry->backoff_ms, retry->attempts, f->cfg->retries);
		retry->at_ns = now + retry->backoff_ms * 1000000ull;
		retry->backoff_ms = send_backoff_next(retry->backoff_ms);
		return;
	}
	if (rc == RS_E_INTERRUPTED)
		give_up(f, r, rc); /* main says what the run committed */
	else
		give_up_link(f, r, rc);
}

bool fleet_drop_laggards(struct fleet *f)
{
	bool was_lost[SEND_REPLICAS_MAX];
	for (unsigned i = 0; i < f->n; i++)
		was_lost[i] = state_of(f, f->replicas[i]) == REPLICA_LOST;
	if (!window_drop_laggards(f->w))
		return false;
	for (unsigned i = 0; i < f->n; i++) {
		struct replica *r = f->replicas[i];
		if (!was_lost[i] || state_of(f, r) != REPLICA_DROPPED)
			continue;
		rs_err("%s fell further behind than the ring holds while its "
		       "link was down (its log holds %llu input bytes)",
		       replica_label(r), input_of(f, r));
		give_up(f, r, RS_E_LOST);
	}
	return true;
}

/* ---- rotation ---- */

/* One replica whose pool holds the window back: true while it may make
 * room. */
static bool make_room_on(struct fleet *f, struct replica *r)
{
	unsigned i = replica_index(r);
	if (!replica_connected(r))
		return true; /* reconnecting: its next grant says */
	if (!replica_rotates(r))
		return false;
	if (replica_rebasing(r) || window_inflight_of(f->w, i))
		return true;
	if (replica_rebase(r, quorum_replica_offset(window_quorum(f->w), i))) {
		replica_lost_because(r, "its rebase could not be asked for");
		fleet_lose(f, r, send_stats_now_ns());
	}
	return true;
}

bool fleet_make_room(struct fleet *f)
{
	uint64_t end = window_end_offset(f->w);
	bool waiting = false;
	for (unsigned i = 0; i < f->n; i++) {
		struct replica *r = f->replicas[i];
		if (!counted(f, r) || replica_log_end(r) > end)
			continue;
		if (!make_room_on(f, r))
			return false;
		waiting = true;
	}
	return waiting;
}

/* Its receiver cannot start its pool over: it is full for good. */
static void full_for_good(struct fleet *f, struct replica *r, uint8_t status)
{
	rs_err("%s: remote log full: %s; committed %llu input bytes",
	       replica_label(r), rs_msg_status_str(status), input_of(f, r));
	give_up(f, r, RS_E_FULL);
}

/* ---- events ---- */

/* Its oldest batch in flight is confirmed, if that is the one. */
static void confirmed(struct fleet *f, struct replica *r,
		      const struct replica_report *rep)
{
	unsigned i = replica_index(r);
	const struct window_batch *b = window_oldest_of(f->w, i);
	if (!b)
		return; /* a straggler */
	int rc = window_confirmed(f->w, i, rep->seq, rep->offset);
	if (rc) {
		rs_err("%s confirmed a commit out of order after %llu input "
		       "bytes; stopping there",
		       replica_label(r), input_of(f, r));
		give_up(f, r, rc);
		return;
	}
	replica_confirmed(r, f->w, b, send_stats_now_ns());
}

static void apply(struct fleet *f, struct replica *r,
		  const struct replica_report *rep)
{
	switch (rep->news) {
	case REPLICA_CONFIRMED:
		confirmed(f, r, rep);
		break;
	case REPLICA_LINK_LOST:
		fleet_lose(f, r, send_stats_now_ns());
		break;
	case REPLICA_REFUSED:
		give_up(f, r, RS_E_REJECTED);
		break;
	case REPLICA_REBASED:
		rs_verbose("%s: its pool starts over at log position %llu",
			   replica_label(r), (unsigned long long)rep->offset);
		refresh_end(f);
		break;
	case REPLICA_FULL:
		full_for_good(f, r, rep->status);
		break;
	case REPLICA_NOTHING:
		break;
	}
}

void fleet_take_events(struct fleet *f)
{
	for (unsigned i = 0; i < f->n; i++) {
		struct replica *r = f->replicas[i];
		struct replica_report rep;
		/* A post that failed left the window counting it lost. */
		if (replica_connected(r) && state_of(f, r) == REPLICA_LOST) {
			replica_lost_because(r, "a write could not be posted");
			fleet_lose(f, r, send_stats_now_ns());
		}
		while (replica_connected(r) && window_streaming(f->w) &&
		       replica_next(r, f->w, &rep))
			apply(f, r, &rep);
	}
}

/* Keepalives and the silent-link check of a connected replica. */
static void tick_connected(struct fleet *f, struct replica *r, uint64_t now)
{
	if (replica_keepalive_due(r, now) && replica_send_keepalive(r, now)) {
		fleet_lose(f, r, now);
		return;
	}
	/* Not hearing back for half the peer timeout, the link is probed;
	 * a probe answered is an answer (a busy link, a busy receiver), one
	 * unanswered for the other half a lost link; a program silent for
	 * twice the timeout behind an adapter that answers is not serving
	 * (replica_liveness). */
	uint64_t silent = 0;
	enum send_liveness_verdict v =
	    replica_liveness(r, f->w, now, &f->stall, &silent);
	if (v == SEND_LIVE)
		return;
	replica_say_silence(r, v, silent);
	if (v != SEND_PROBE || replica_probe(r, now))
		fleet_lose(f, r, now);
}

void fleet_tick(struct fleet *f, uint64_t now)
{
	for (unsigned i = 0; i < f->n && window_streaming(f->w); i++) {
		struct replica *r = f->replicas[i];
		if (replica_connected(r))
			tick_connected(f, r, now);
		else if (state_of(f, r) == REPLICA_LOST &&
			 now >= retry_of(f, r)->at_ns)
			reconnect(f, r, now);
	}
}

/* ---- waiting ---- */

bool fleet_spin(struct fleet *f)
{
	uint64_t until = 0;
	for (unsigned i = 0; i < f->n; i++) {
		uint64_t u = replica_spin_until(f->replicas[i], f->w);
		if (u > until)
			until = u;
	}
	while (until && send_stats_now_ns() < until) {
		for (unsigned i = 0; i < f->n; i++) {
			struct replica *r = f->replicas[i];
			struct replica_report rep;
			if (replica_connected(r) &&
			    replica_poll(r, f->w, &rep)) {
				apply(f, r, &rep);
				return true;
			}
		}
	}
	return false;
}

nfds_t fleet_pollfds(const struct fleet *f, struct pollfd *pfd)
{
	nfds_t n = 0;
	for (unsigned i = 0; i < f->n; i++) {
		const struct replica *r = f->replicas[i];
		if (!replica_connected(r))
			continue;
		int comp_fd, cm_fd;
		replica_fds(r, &comp_fd, &cm_fd);
		pfd[n++] = (struct pollfd){.fd = comp_fd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = cm_fd, .events = POLLIN};
	}
	return n;
}

void fleet_waits(struct fleet *f, uint64_t now_ns, uint64_t wait_ns)
{
	rs_stall_waits(&f->stall, now_ns, wait_ns);
}

void fleet_woke(struct fleet *f, uint64_t now_ns)
{
	rs_stall_woke(&f->stall, now_ns);
}

uint64_t fleet_timeout(const struct fleet *f, uint64_t now, uint64_t wait)
{
	for (unsigned i = 0; i < f->n; i++) {
		const struct replica *r = f->replicas[i];
		uint64_t at = 0;
		if (replica_connected(r))
			at = replica_keepalive_at(r);
		else if (state_of(f, r) == REPLICA_LOST)
			at = f->retry[i].at_ns;
		if (at && at <= now)
			return 0;
		if (at && at - now < wait)
			wait = at - now;
	}
	return wait;
}
