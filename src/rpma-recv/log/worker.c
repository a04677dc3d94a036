/* A served log and its turns: requests handed over, every session's
 * completions and connection events, timers. One of the service's threads
 * (log/threads.c) gives it its turns, waiting on its descriptors with the
 * other logs' in one epoll set. */
#include "log/worker.h"

#include "cli/log.h"
#include "error.h"
#include "log/admission.h"
#include "log/held_token.h"
#include "log/inbox.h"
#include "log/threads.h"
#include "log/worker_run.h"
#include "metrics/clock.h"
#include "pool/pmem_target.h"
#include "rdma/conn.h"
#include "rotation/rotation.h"
#include "session/session.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#define RECV_POLL_MS 200 /* how often an idle log looks at its timers */
/* how often it looks at the write offset for a waiting reader while the
 * writer commits alone (apm, flush): a follower's wake-up, at most */
#define RECV_HEAD_POLL_MS 2
#define RECV_BATCH_COMPLETIONS 64 /* per session per turn: fairness */

struct recv_log_worker {
	struct recv_worker_config cfg;
	struct recv_counters *counters; /* the service's */
	struct recv_log_counters log_counters;
	struct recv_pmem_target target;
	struct recv_rotation *rotation; /* its positions, its archive */
	struct recv_admission adm;	/* its senders */
	struct recv_held_token held;	/* its writer's token, for routing */
	struct recv_inbox inbox;
	uint64_t timers_due_ns; /* when its sessions' timers run next */
	int epfd;		/* its thread's epoll set; -1: none yet */
	atomic_bool retired;	/* takes no new connections */
	atomic_bool stop;	/* end every session */
	atomic_bool done;	/* its sessions have ended: its thread let go */
};

/* Handles one completion of a session. */
static void on_completion(struct recv_sender *a, const struct rs_completion *wc)
{
	/* A completion can overtake the ESTABLISHED event; it proves the
	 * connection was up. */
	if (a->s.state == RECV_SESSION_ADMITTED)
		recv_session_on_established(&a->s, recv_now_ms());
	if (wc->wr_id == RS_CONN_PROBE_WR_ID && (wc->ok || !wc->flushed)) {
		if (wc->ok)
			recv_session_on_probe_answered(&a->s);
		else
			recv_session_on_probe_failed(&a->s, wc->status,
						     recv_now_ms());
		return;
	}
	if (!wc->ok) {
		if (!wc->flushed)
			rs_err("connection with %s failed: %s", a->s.peer,
			       wc->status);
		recv_session_on_failure(&a->s, wc->status);
		return;
	}
	if (wc->op == RS_OP_SEND)
		recv_session_on_sent(&a->s);
	if (wc->op != RS_OP_RECV)
		return;
	struct rs_msg msg;
	uint16_t slot;
	struct rs_error err = {0};
	if (rs_session_take(a->rs, wc, &msg, &slot, &err)) {
		if (a->s.state == RECV_SESSION_SERVING)
			rs_err("sender %s sent a malformed message (%s); "
			       "closing the connection",
			       a->s.peer, err.msg);
		recv_session_on_failure(&a->s, err.msg);
		return;
	}
	recv_session_on_message(&a->s, slot, &msg, recv_now_ms());
}

/* Takes a session's completions without waiting. True if there were. */
static bool take_completions(struct recv_sender *a)
{
	struct rs_conn *conn = rs_session_conn(a->rs);
	for (int n = 0; n < RECV_BATCH_COMPLETIONS; n++) {
		if (a->s.state == RECV_SESSION_CLOSING)
			return n > 0;
		struct rs_completion wc;
		enum rs_wait_result r = rs_conn_next_completion(conn, &wc, 0);
		if (r == RS_WAIT_ERROR)
			recv_session_on_failure(&a->s,
						"completion queue error");
		if (r != RS_WAIT_COMPLETION)
			return n > 0;
		on_completion(a, &wc);
	}
	return true;
}

/* Takes a session's connection events. True if there were. */
static bool take_conn_events(struct recv_sender *a)
{
	bool any = false;
	for (;;) {
		switch (rs_conn_next_event(rs_session_conn(a->rs))) {
		case RS_CONN_EVENT_NONE:
			return any;
		case RS_CONN_EVENT_ESTABLISHED:
			recv_session_on_established(&a->s, recv_now_ms());
			break;
		case RS_CONN_EVENT_CLOSED:
			recv_session_on_failure(&a->s, "disconnected");
			break;
		default:
			break;
		}
		any = true;
	}
}

/* A request taken out of the inbox (by its log's thread or the
 * service's): no longer waiting. */
static struct recv_handover *taken(struct recv_log_worker *w,
				   struct recv_handover *h)
{
	if (h)
		atomic_fetch_sub(&w->counters->waiting, 1);
	return h;
}

static void handover_free(struct recv_handover *h)
{
	memset(&h->rules.key, 0, sizeof(h->rules.key));
	free(h);
}

/* What taking a request costs, lately (an average over the last few):
 * the service's hint to a sender it tells to ask again. */
static void note_admit_cost(struct recv_log_worker *w, uint64_t ns)
{
	unsigned us = (unsigned)(ns / 1000),
		 was = atomic_load(&w->counters->admit_us);
	atomic_store(&w->counters->admit_us, was ? (7 * was + us) / 8 : us);
}

/* When to ask again, for a request its log's thread came to late: about
 * how long the requests waiting now take to admit, spread so that those
 * told together do not come back together (the service's hint,
 * service/answering.c, divides this by its threads). */
static uint16_t retry_hint_ms(const struct recv_log_worker *w)
{
	uint64_t ms = (uint64_t)atomic_load(&w->counters->waiting) *
		      atomic_load(&w->counters->admit_us) / 1000;
	if (ms < 100)
		ms = 100;
	ms += (uint64_t)random() % (ms / 2 + 1);
	return ms > 5000 ? 5000 : (uint16_t)ms;
}

/* Admits what the service handed over; one that waited longer than
 * RECV_ANSWER_MS (its sender waits for an answer) is refused as busy
 * instead, so that its setup does not make it later still. True if there
 * was something. */
static bool take_handovers(struct recv_log_worker *w)
{
	bool any = false;
	struct recv_handover *h;
	while ((h = taken(w, recv_inbox_pop(&w->inbox)))) {
		uint64_t start = recv_now_ns();
		if (start - h->asked_ns > RECV_ANSWER_MS * 1000000ull) {
			uint16_t retry_ms = retry_hint_ms(w);
			rs_verbose("sender %s: its log's thread came to its "
				   "request after %llu ms: told to ask again "
				   "in %u ms",
				   h->peer,
				   (unsigned long long)((start - h->asked_ns) /
							1000000ull),
				   retry_ms);
			recv_admission_refuse(&w->adm, h, RS_REJECT_BUSY,
					      retry_ms);
		} else {
			recv_admission_admit(&w->adm, h);
			note_admit_cost(w, recv_now_ns() - start);
		}
		handover_free(h);
		any = true;
	}
	return any;
}

/* What completed of what a session posted (its send queue raises no
 * event: rs_conn_quiet_sends), without a system call. */
static void take_sends(struct recv_sender *a)
{
	struct rs_completion wc;
	while (a->s.state != RECV_SESSION_CLOSING &&
	       rs_conn_poll_sends(rs_session_conn(a->rs), &wc) ==
		   RS_WAIT_COMPLETION)
		on_completion(a, &wc);
}

/* Runs every session's timers and ends the sessions that are over. */
static void end_closed_sessions(struct recv_log_worker *w, int64_t now)
{
	struct recv_sender *a = w->adm.sessions;
	while (a) {
		struct recv_sender *next = a->next;
		recv_session_on_timer(&a->s, now);
		if (a->s.state == RECV_SESSION_CLOSING)
			recv_admission_end(&w->adm, a);
		a = next;
	}
}

/* The first point after now on a grid of period ms: the logs of one thread
 * fall due together, so that it looks at them in one sweep each period, not
 * in one sweep per log. */
static uint64_t next_tick(uint64_t now_ns, uint64_t period_ms)
{
	uint64_t period = period_ms * 1000000ull;
	return (now_ns / period + 1) * period;
}

/* A rebase whose writer is gone is finished all the same (its stretch is
 * durable: the pool starts over), before any sender is admitted: a grant
 * must say where the log stands. True while one is still under way. */
static bool rebase_pending(struct recv_log_worker *w)
{
	uint8_t status;
	uint64_t base;
	if (!recv_admission_rebasing(&w->adm) &&
	    recv_rotation_rebase_poll(w->rotation, &status, &base))
		recv_admission_pool_rewound(&w->adm);
	return recv_rotation_rebasing(w->rotation);
}

bool recv_log_worker_turn(struct recv_log_worker *w, uint64_t now_ns)
{
	bool busy = false;
	/* Senders wait while a rebase is under way (the service answers
	 * them as busy if it takes long). */
	if (!rebase_pending(w))
		busy = take_handovers(w);
	else
		recv_inbox_hush(&w->inbox);
	for (struct recv_sender *a = w->adm.sessions; a; a = a->next) {
		busy |= take_completions(a);
		busy |= take_conn_events(a);
	}
	end_closed_sessions(w, recv_now_ms()); /* the turn took its time */
	recv_rotation_nudge(w->rotation);
	/* The rebase they waited for ended in this turn: the next takes
	 * them. */
	if (!rebase_pending(w) && recv_inbox_waiting(&w->inbox))
		busy = true;
	/* A reader that began to wait wants its timers soon. */
	if (recv_admission_watching_head(&w->adm) &&
	    w->timers_due_ns > now_ns + RECV_HEAD_POLL_MS * 1000000ull)
		w->timers_due_ns = next_tick(now_ns, RECV_HEAD_POLL_MS);
	return busy;
}

uint64_t recv_log_worker_timers(struct recv_log_worker *w, uint64_t now_ns)
{
	if (now_ns < w->timers_due_ns)
		return w->timers_due_ns;
	/* A turn takes them with the rest; a quiet log has no turns. */
	for (struct recv_sender *a = w->adm.sessions; a; a = a->next)
		take_sends(a);
	/* The thread's clock: one reading for all its logs' timers. */
	end_closed_sessions(w, (int64_t)(now_ns / 1000000ull));
	recv_rotation_nudge(w->rotation);
	/* A handover that waited for a rebase is taken now: its turn. */
	if (!rebase_pending(w) && recv_inbox_waiting(&w->inbox))
		recv_inbox_wake(&w->inbox);
	uint64_t ms = recv_admission_watching_head(&w->adm)
			  ? RECV_HEAD_POLL_MS
			  : recv_admission_timer_ms(&w->adm, RECV_POLL_MS);
	w->timers_due_ns = next_tick(now_ns, ms);
	return w->timers_due_ns;
}

uint64_t recv_log_worker_timers_due(const struct recv_log_worker *w)
{
	return w->timers_due_ns;
}

bool recv_log_worker_serving(const struct recv_log_worker *w)
{
	return w->adm.sessions != 0;
}

bool recv_log_worker_spins(const struct recv_log_worker *w)
{
	return w->cfg.busy_poll && recv_admission_spins(&w->adm);
}

bool recv_log_worker_poll(struct recv_log_worker *w)
{
	for (struct recv_sender *a = w->adm.sessions; a; a = a->next) {
		if (a->s.state == RECV_SESSION_CLOSING)
			continue;
		struct rs_completion wc;
		enum rs_wait_result r =
		    rs_conn_poll_completion(rs_session_conn(a->rs), &wc);
		if (r == RS_WAIT_COMPLETION)
			on_completion(a, &wc);
		else if (r == RS_WAIT_ERROR)
			recv_session_on_failure(&a->s,
						"completion queue error");
		if (r != RS_WAIT_TIMEOUT)
			return true;
	}
	return false;
}

bool recv_log_worker_over(const struct recv_log_worker *w)
{
	if (atomic_load(&w->stop))
		return true;
	/* Retired: over once nothing is left to serve. */
	return atomic_load(&w->retired) && !w->adm.sessions;
}

/* Requests that came in just before the log was retired or stopped. A log
 * retired by a reload is gone; one stopped with its receiver comes back,
 * so its senders are told to retry. */
static void refuse_handovers(struct recv_log_worker *w)
{
	uint8_t reason =
	    atomic_load(&w->stop) ? RS_REJECT_STOPPING : RS_REJECT_NO_SUCH_LOG;
	struct recv_handover *h;
	while ((h = taken(w, recv_inbox_pop(&w->inbox)))) {
		recv_admission_refuse(&w->adm, h, reason, 0);
		handover_free(h);
	}
}

void recv_log_worker_admit(struct recv_log_worker *w)
{
	if (!rebase_pending(w))
		take_handovers(w);
}

void recv_log_worker_attach(struct recv_log_worker *w, int epfd, void *owner,
			    void *inbox_owner, const struct rs_stall *stall)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = inbox_owner};
	w->epfd = epfd;
	recv_admission_watch(&w->adm, epfd, owner, stall);
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, w->inbox.fd, &ev))
		rs_err("log %s: cannot wait for its senders: %s",
		       w->cfg.pool_path, strerror(errno));
	w->timers_due_ns = recv_now_ns();
}

void recv_log_worker_finish(struct recv_log_worker *w)
{
	refuse_handovers(w); /* none may stay unanswered */
	recv_admission_fini(&w->adm);
	epoll_ctl(w->epfd, EPOLL_CTL_DEL, w->inbox.fd, 0);
	atomic_store(&w->done, true);
}

/* The archiver made a rebase's stretch durable: the log's thread takes it
 * from here (its turn, woken through the inbox's descriptor). */
static void wake_for_rebase(void *inbox)
{
	recv_inbox_wake(inbox);
}

int recv_log_worker_start(const struct recv_worker_config *cfg,
			  struct recv_counters *counters,
			  struct recv_threads *threads,
			  struct recv_log_worker **out, struct rs_error *err)
{
	struct recv_log_worker *w = calloc(1, sizeof(*w));
	if (!w)
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	w->cfg = *cfg;
	w->epfd = -1;
	w->counters = counters;
	int rc = recv_pmem_target_open(&w->target, cfg->pool_path,
				       cfg->create_size, err);
	if (rc) {
		free(w);
		return rc;
	}
	rc = recv_rotation_open(&cfg->rotation, cfg->name, &w->target,
				cfg->archiver, &w->rotation, err);
	if (rc) {
		recv_pmem_target_close(&w->target);
		free(w);
		return rc;
	}
	recv_held_token_init(&w->held);
	recv_admission_init(&w->adm, &w->cfg, counters, &w->log_counters,
			    &w->target, w->rotation, &w->held);
	if (recv_inbox_init(&w->inbox)) {
		rc = rs_error_set(err, RS_E_NOMEM, errno,
				  "cannot start serving %s: %s", cfg->pool_path,
				  strerror(errno));
		recv_held_token_fini(&w->held);
		recv_rotation_close(&w->rotation);
		recv_pmem_target_close(&w->target);
		free(w);
		return rc;
	}
	recv_rotation_on_rebased(w->rotation, wake_for_rebase, &w->inbox);
	if (recv_threads_attach(threads, w)) {
		recv_held_token_fini(&w->held);
		/* The archiver may wake the inbox until the rotation is closed.
		 */
		recv_rotation_close(&w->rotation);
		recv_inbox_fini(&w->inbox);
		recv_pmem_target_close(&w->target);
		free(w);
		return rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	}
	*out = w;
	return 0;
}

void recv_log_worker_hand_over(struct recv_log_worker *w, struct rs_conn *conn,
			       const struct rs_connect_req *req,
			       const char *peer,
			       const struct recv_log_rules *rules,
			       enum recv_seat_claim claim)
{
	struct recv_handover *h = calloc(1, sizeof(*h));
	if (!h) {
		rs_session_refuse(&conn, req->version, RS_REJECT_INTERNAL, 0);
		recv_counters_refused(&w->log_counters, RECV_REFUSED_INTERNAL);
		if (claim == RECV_SEAT_TAKEN) {
			recv_counters_disconnected(&w->log_counters);
			atomic_fetch_sub(&w->counters->senders, 1);
		}
		return;
	}
	h->conn = conn;
	h->req = *req;
	snprintf(h->peer, sizeof(h->peer), "%s", peer);
	h->rules = *rules;
	recv_seat_hold(&h->seat, claim);
	h->asked_ns = recv_now_ns();
	atomic_fetch_add(&w->counters->waiting, 1);
	recv_inbox_push(&w->inbox, h);
}

unsigned recv_log_worker_answer_late(struct recv_log_worker *w,
				     uint64_t before_ns, uint16_t retry_ms)
{
	unsigned n = 0;
	struct recv_handover *h;
	while ((h = taken(w, recv_inbox_pop_older(&w->inbox, before_ns)))) {
		rs_verbose("sender %s: its log's thread did not take its "
			   "request within %llu ms: told to ask again in %u ms",
			   h->peer,
			   (unsigned long long)((recv_now_ns() - h->asked_ns) /
						1000000ull),
			   retry_ms);
		recv_admission_refuse(&w->adm, h, RS_REJECT_BUSY, retry_ms);
		handover_free(h);
		n++;
	}
	return n;
}

bool recv_log_worker_holds(struct recv_log_worker *w,
			   const struct rs_session_token *token)
{
	return recv_held_token_matches(&w->held, token);
}

struct recv_log_counters *recv_log_worker_counters(struct recv_log_worker *w)
{
	return &w->log_counters;
}

void recv_log_worker_retire(struct recv_log_worker *w)
{
	atomic_store(&w->retired, true);
	recv_inbox_wake(&w->inbox); /* so the thread notices */
}

bool recv_log_worker_done(struct recv_log_worker *w)
{
	return atomic_load(&w->done);
}

void recv_log_worker_stop(struct recv_log_worker **wp)
{
	struct recv_log_worker *w = *wp;
	if (!w)
		return;
	atomic_store(&w->stop, true);
	recv_log_worker_retire(w);
	/* Its thread ends its sessions and lets go of it. */
	const struct timespec tick = {0, 1000000};
	while (!atomic_load(&w->done))
		nanosleep(&tick, 0);
	/* The archiver may wake the inbox until the rotation is closed. */
	recv_rotation_close(&w->rotation);
	recv_inbox_fini(&w->inbox);
	recv_pmem_target_close(&w->target);
	recv_held_token_fini(&w->held);
	free(w);
	*wp = 0;
}

const struct recv_worker_config *
recv_log_worker_config(const struct recv_log_worker *w)
{
	return &w->cfg;
}

void recv_log_worker_usage(const struct recv_log_worker *w,
			   struct recv_log_usage *u)
{
	u->size = w->target.end - w->target.start;
	u->used = recv_pmem_target_write_offset(&w->target) - w->target.start;
	recv_rotation_archived(w->rotation, &u->archive_files, &u->archived,
			       &u->rotated);
}
