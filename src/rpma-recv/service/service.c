#include "service/internal.h"

#include "metrics/clock.h"

#include "cli/fd_limit.h"
#include "cli/log.h"
#include "config/reload.h"
#include "error.h"
#include "pool/open.h"
#include "rdma/listener.h"
#include "rdma/mw.h"
#include "rotation/archiver.h"
#include "service/descriptors.h"
#include "service/sd_notify.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

volatile sig_atomic_t recv_stop_requested;
volatile sig_atomic_t recv_reload_requested;

/* The loop sleeps in ppoll with the stop and reload signals let through
 * only there (every thread blocks them), so a signal wakes it at once; the
 * rest it looks at by itself: --once's end and a retired log's (soon), the
 * status line and the metrics file (each second, when due). An idle
 * receiver's wake-ups are most of its CPU. */
#define RECV_POLL_MS 200
#define RECV_IDLE_MS 1000
/* While requests wait for their logs' threads: how often the loop looks
 * whether one waited too long (service/answering.c). */
#define RECV_ANSWER_POLL_MS 50
/* Connection requests routed in one turn of the loop, at most. */
#define RECV_REQUESTS_PER_TURN 64u

static const char *log_label(const struct recv_log_settings *s)
{
	return s->name[0] ? s->name : s->pool_path;
}

static struct recv_worker_config
worker_config(const struct service *svc, const struct recv_log_settings *l)
{
	struct recv_worker_config c = {
	    .create_size = l->create_size,
	    .exposure = {.direct_write_to_pmem = l->direct_write_to_pmem,
			 .append_only = l->append_only,
			 .slot_size = svc->settings.staging_slot,
			 .slots = svc->settings.credits},
	    .archiver = svc->archiver,
	    .peer_timeout_ms = svc->settings.peer_timeout_ms,
	    .busy_poll = svc->settings.busy_poll};
	snprintf(c.name, sizeof(c.name), "%s", l->name);
	snprintf(c.pool_path, sizeof(c.pool_path), "%s", l->pool_path);
	snprintf(c.rotation.dir, sizeof(c.rotation.dir), "%s", l->archive_dir);
	c.rotation.rotate_at = l->rotate_at;
	c.rotation.keep = l->archive_keep;
	c.rotation.max_bytes = l->archive_max;
	return c;
}

/* A pool that cannot be used is reported at the place that names it:
 * FILE:LINE, or the command line. */
static void report_pool(const struct service *svc,
			const struct recv_log_settings *s,
			const struct rs_error *err)
{
	if (s->pool_line)
		rs_err("%s:%u: log %s: %s", svc->settings.path, s->pool_line,
		       s->name, err->msg);
	else
		rs_err("%s", err->msg);
}

static void print_serving(const struct service *svc,
			  const struct served_log *l);
static int pool_precheck(const struct service *svc,
			 const struct recv_log_settings *s);

int recv_service_log_open(void *ctx, const struct recv_log_settings *s,
			  struct recv_log_worker **out, struct rs_error *err)
{
	struct service *svc = ctx;
	struct recv_worker_config cfg = worker_config(svc, s);
	return recv_log_worker_start(&cfg, &svc->counters, svc->threads, out,
				     err);
}

/* A log's place in the configuration in force; a log a reload added comes
 * after them, in the order they opened. */
static unsigned config_order(struct service *svc,
			     const struct recv_log_settings *s)
{
	for (unsigned i = 0; i < svc->settings.nlogs; i++)
		if (&svc->settings.logs[i] == s)
			return i;
	return svc->settings.nlogs + svc->added_opened++;
}

int recv_service_log_opened(struct service *svc,
			    const struct recv_log_settings *s,
			    struct recv_log_worker *w, int rc,
			    struct rs_error *err)
{
	struct served_log *l = rc ? NULL : calloc(1, sizeof(*l));
	if (!rc && !l) {
		recv_log_worker_stop(&w);
		rc = rs_error_set(err, RS_E_NOMEM, ENOMEM, "out of memory");
	}
	if (rc) {
		report_pool(svc, s, err);
		return rc;
	}
	l->settings = *s;
	l->worker = w;
	l->order = config_order(svc, s);
	/* In the configuration's order, the last first, however the opens
	 * end: the status line and the metrics file list them so. */
	struct served_log **at = &svc->logs;
	while (*at && (*at)->order > l->order)
		at = &(*at)->next;
	l->next = *at;
	*at = l;
	print_serving(svc, l);
	return 0;
}

static void log_free(struct served_log *l)
{
	recv_log_worker_stop(&l->worker);
	/* a memset before free may be left out (recv_settings_free) */
	explicit_bzero(&l->settings.auth_key, sizeof(l->settings.auth_key));
	free(l);
}

static void logs_stop(struct service *svc)
{
	while (svc->logs) {
		struct served_log *l = svc->logs;
		svc->logs = l->next;
		log_free(l);
	}
}

/* Frees the logs a reload removed, once their last session ended. */
static void reap_retired(struct service *svc)
{
	for (struct served_log **p = &svc->logs; *p;) {
		struct served_log *l = *p;
		if (l->retired && recv_log_worker_done(l->worker)) {
			rs_info("log %s: its last session ended; no longer "
				"served",
				log_label(&l->settings));
			*p = l->next;
			log_free(l);
		} else {
			p = &l->next;
		}
	}
}

/* What gpspm writers can reach on each RDMA device, once at start. */
static void print_windows(const struct service *svc)
{
	const char *off = getenv("RPMA_RECV_WINDOWS");
	bool append_only = false;
	for (unsigned i = 0; i < svc->settings.nlogs; i++)
		append_only |= svc->settings.logs[i].append_only;
	const char *ao = append_only ? "; append-only logs take staged "
				       "commits only there"
				     : "";
	if (off && !strcmp(off, "off")) {
		rs_info("memory windows off (RPMA_RECV_WINDOWS=off): gpspm "
			"writers get a key to the whole log%s",
			ao);
		return;
	}
	struct rs_window_support dev[8];
	int n = rs_windows_survey(dev, 8);
	for (int i = 0; i < n && i < 8; i++) {
		if (!dev[i].binds)
			rs_info("RDMA device %s cannot bind memory windows: "
				"gpspm writers get a key to the whole log "
				"there%s",
				dev[i].device, ao);
		else if (!dev[i].bounded)
			rs_info("RDMA device %s does not keep a memory "
				"window's accesses inside its range "
				"(Soft-RoCE): a gpspm writer's key reaches "
				"back from the head to where its window's "
				"region begins there (at most half the "
				"region, 64 KiB for an idle writer)%s",
				dev[i].device, ao);
		else
			rs_verbose("RDMA device %s: gpspm writers reach only "
				   "the unused tail, through memory windows",
				   dev[i].device);
	}
}

/* The line a log's opening ends with: the receiver serves it. */
static void print_serving(const struct service *svc, const struct served_log *l)
{
	const struct rs_endpoint *ep = &svc->settings.listen;
	struct recv_log_usage u;
	recv_log_worker_usage(l->worker, &u);
	rs_info("serving%s%s%s (%llu bytes of log, %llu used) on %s:%s",
		l->settings.name[0] ? " log " : "", l->settings.name,
		l->settings.name[0] ? ":" : "", (unsigned long long)u.size,
		(unsigned long long)u.used, ep->host[0] ? ep->host : "*",
		ep->port);
	if (l->settings.append_only)
		rs_info("log %s is append-only: no sender can write what it "
			"committed (memory windows over its unused tail where "
			"the device keeps them to their range, else the staged "
			"method only)",
			log_label(&l->settings));
}

/* The threads that serve the logs (as many as `workers` says) and the
 * archiver's, one for all. */
static int threads_start(struct service *svc)
{
	unsigned n = svc->settings.workers;
	struct rs_error err = {0};
	int rc =
	    recv_threads_start(n ? n : recv_threads_default(),
			       svc->settings.busy_poll, &svc->threads, &err);
	if (!rc)
		rc = recv_archiver_start(&svc->archiver, &err);
	if (rc)
		rs_err("%s", err.msg);
	return rc;
}

/* Stops every log, then the threads that served them. */
static void service_close(struct service *svc)
{
	struct recv_opened left[RECV_OPENER_DEPTH_MAX];
	recv_held_drop_all(&svc->held);
	for (unsigned i = recv_opener_stop(&svc->opener, left); i--;)
		if (left[i].worker)
			recv_log_worker_stop(&left[i].worker);
	recv_service_pending_free(svc);
	logs_stop(svc);
	recv_threads_stop(&svc->threads);
	recv_archiver_stop(&svc->archiver);
	rs_listener_delete(&svc->listener);
}

/* A pool looked at without writing to it, so that one the receiver
 * cannot use is said plainly, and before anything is written: libpmemlog
 * writes to a pool it opens. */
static int pool_precheck(const struct service *svc,
			 const struct recv_log_settings *s)
{
	struct rs_error err = {0};
	int rc = recv_pool_precheck(s->pool_path, s->create_size, &err);
	if (rc)
		report_pool(svc, s, &err);
	return rc;
}

/* Looks at every pool (a pool the receiver cannot use fails the start,
 * said first: a pool file's head is read, not mapped, so that a thousand
 * take a moment), binds the listening address, starts the threads and
 * takes requests before any pool is opened or created (a start that fails
 * there, no RDMA device or the port taken, leaves the pools as they were);
 * then the first log opens, the others in the loop's turns
 * (service/opening.c), so that a restarted receiver of a thousand logs
 * answers at once. */
static int service_open(struct service *svc)
{
	int rc = 0;
	for (unsigned i = 0; !rc && i < svc->settings.nlogs; i++)
		rc = pool_precheck(svc, &svc->settings.logs[i]);
	if (rc)
		return rc;
	struct rs_error err = {0};
	const struct rs_endpoint *ep = &svc->settings.listen;
	rc = rs_listener_new(ep->host, ep->port, &svc->listener, &err);
	if (rc) {
		rs_err("%s", err.msg);
		return rc;
	}
	rc = threads_start(svc);
	if (!rc && (rc = rs_listener_open(svc->listener, &err)))
		rs_err("%s", err.msg);
	/* as many opens at once as threads serve the logs */
	if (!rc && (rc = recv_opener_start(recv_service_log_open, svc,
					   recv_threads_count(svc->threads),
					   &svc->opener, &err)))
		rs_err("%s", err.msg);
	if (!rc) {
		recv_service_pend(svc);
		rc = recv_service_open_turn(svc);
	}
	if (rc)
		service_close(svc);
	return rc;
}

/* ---- reload ---- */

static struct served_log *find_served(struct service *svc,
				      const struct recv_log_settings *s)
{
	for (struct served_log *l = svc->logs; l; l = l->next) {
		if (!l->retired && !strcmp(l->settings.name, s->name))
			return l;
	}
	return 0;
}

static bool in_settings(const struct recv_settings *s,
			const struct served_log *l)
{
	const struct recv_log_settings *n =
	    recv_settings_find_log(s, l->settings.name);
	return n && settings_reload_same_log(&l->settings, n);
}

/* A log kept across a reload takes its new rules (allow, key, methods)
 * for new connections; what its thread was started with stays
 * (config/reload.h says which). */
static void log_update(struct served_log *l, const struct recv_log_settings *n)
{
	char kept[128];
	unsigned nkept =
	    settings_reload_log(&l->settings, n, kept, sizeof(kept));
	if (nkept)
		rs_warn("log %s: %s take%s effect after a restart", n->name,
			kept, nkept == 1 ? "s" : "");
}

static void apply(struct service *svc, struct recv_settings *next)
{
	for (struct served_log *l = svc->logs; l; l = l->next) {
		if (!l->retired && !in_settings(next, l)) {
			rs_info("log %s removed: it takes no new senders",
				log_label(&l->settings));
			l->retired = true;
			recv_log_worker_retire(l->worker);
		}
	}
	settings_reload_globals(&svc->settings, next);
	for (unsigned i = 0; i < next->nlogs; i++) {
		struct served_log *l = find_served(svc, &next->logs[i]);
		if (l)
			log_update(l, &next->logs[i]);
		else if (!pool_precheck(svc, &next->logs[i]))
			recv_service_pend_added(svc, &next->logs[i]);
	}
	if (svc->opened) /* else said once the logs are open */
		recv_descriptors_check_room(svc->settings.max_senders);
}

static void reload(struct service *svc)
{
	recv_reload_requested = 0;
	svc->reload_asker = recv_reload_ask_take();
	svc->reload_answer = RECV_RELOAD_DONE;
	recv_sd_notify_reloading();
	struct recv_settings next;
	recv_settings_init(&next);
	struct rs_error err = {0};
	if (svc->source.build(svc->source.ctx, &next, &err)) {
		rs_err("%s; keeping the configuration in force", err.msg);
		svc->reload_answer = RECV_RELOAD_KEPT;
	} else {
		rs_info("reloading %s",
			next.path[0] ? next.path : "the configuration");
		/* FILE:LINE of logs started from now on name this file */
		snprintf(svc->settings.path, sizeof(svc->settings.path), "%s",
			 next.path);
		apply(svc, &next);
	}
	recv_settings_free(&next);
	/* READY once the logs it added are open (the loop says it, and
	 * answers the asker): `systemctl reload` returns with them served
	 * and the status line up to date. */
	svc->ready = false;
}

/* ---- the loop ---- */

static bool any_retired(const struct service *svc)
{
	for (const struct served_log *l = svc->logs; l; l = l->next)
		if (l->retired)
			return true;
	return false;
}

static unsigned loop_wait_ms(const struct service *svc, bool once)
{
	if (!svc->ready && !svc->opening)
		return 0; /* READY=1 is due: a reload's asker waits for it */
	if (atomic_load(&svc->counters.waiting) || svc->held.count)
		return RECV_ANSWER_POLL_MS;
	if (once || any_retired(svc))
		return RECV_POLL_MS;
	uint64_t now = recv_now_ns();
	if (svc->settings.metrics_file[0] && svc->metrics_due_ns > now &&
	    svc->metrics_due_ns - now < RECV_IDLE_MS * 1000000ull)
		return (unsigned)((svc->metrics_due_ns - now + 999999) /
				  1000000);
	return RECV_IDLE_MS;
}

/* Waits for a request, the end of an open, a signal (let through by
 * awake) or the time, then routes every request waiting, up to
 * RECV_REQUESTS_PER_TURN (one a turn, 50 a second while logs opened, kept
 * a fleet that asks again every few hundred ms waiting behind its own
 * repeats). */
static void take_requests(struct service *svc, unsigned wait_ms,
			  const sigset_t *awake)
{
	/* the opener's descriptor: an open ended (the loop's turn takes it) */
	struct pollfd pfd[2] = {
	    {.fd = rs_listener_fd(svc->listener), .events = POLLIN},
	    {.fd = svc->opening ? recv_opener_fd(svc->opener) : -1,
	     .events = POLLIN}};
	struct timespec ts = {.tv_sec = wait_ms / 1000,
			      .tv_nsec = (long)(wait_ms % 1000) * 1000000L};
	if (ppoll(pfd, 2, &ts, awake) <= 0 || !(pfd[0].revents & POLLIN))
		return;
	for (unsigned n = 0; n < RECV_REQUESTS_PER_TURN; n++) {
		struct rs_listener_event ev;
		struct rs_error err = {0};
		if (rs_listener_next_event(svc->listener, 0, &ev, &err)) {
			rs_verbose("%s", err.msg);
			return;
		}
		if (ev.type != RS_LISTENER_REQUEST)
			return; /* none waiting (or the listener's own) */
		recv_service_route(svc, &ev);
	}
}

/* Blocks the stop and reload signals before any thread starts (threads
 * inherit it): a signal taken by a worker thread would not end the loop's
 * sleep. awake is the mask to sleep with. */
static void block_loop_signals(sigset_t *awake)
{
	sigset_t loop;
	sigemptyset(&loop);
	sigaddset(&loop, SIGINT);
	sigaddset(&loop, SIGTERM);
	sigaddset(&loop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &loop, awake);
	sigdelset(awake, SIGINT);
	sigdelset(awake, SIGTERM);
	sigdelset(awake, SIGHUP);
}

/* Serves until a stop signal, or with once until a sender was served:
 * 0, or the error of a log that could not be opened. */
static int serve(struct service *svc, bool once, const sigset_t *awake)
{
	int rc = 0;
	while (!recv_stop_requested &&
	       !(once && atomic_load(&svc->counters.served))) {
		/* Ready (systemd) once every log is open, at the start and
		 * after a reload; it serves before. */
		if (!svc->ready && !svc->opening) {
			recv_service_report(svc, "READY=1\n", recv_now_ns());
			svc->ready = true;
			recv_reload_ask_answer(&svc->reload_asker,
					       svc->reload_answer);
		}
		/* A reload waits until every log is opened. */
		if (recv_reload_requested && !svc->opening)
			reload(svc);
		/* With no log served it says whether one still may be (the
		 * last to open may have failed, opened for a request). */
		if ((rc = recv_service_open_turn(svc)))
			break;
		recv_service_route_held(svc, recv_now_ns());
		take_requests(svc, loop_wait_ms(svc, once), awake);
		recv_service_answer_late(svc, recv_now_ns());
		reap_retired(svc);
		recv_service_report(svc, 0, recv_now_ns());
	}
	return rc;
}

int recv_service_run(const struct recv_settings_source *source, bool once)
{
	struct service svc;
	memset(&svc, 0, sizeof(svc));
	svc.reload_asker = RECV_RELOAD_NOBODY;
	svc.source = *source;
	recv_status_line_init(&svc.status);
	recv_settings_init(&svc.settings);
	struct rs_error err = {0};
	int rc = source->build(source->ctx, &svc.settings, &err);
	if (rc) {
		rs_err("%s", err.msg);
		recv_settings_free(&svc.settings);
		return rc;
	}
	rs_fd_limit_raise();
	sigset_t awake;
	block_loop_signals(&awake);
	rc = service_open(&svc);
	if (rc) {
		pthread_sigmask(SIG_SETMASK, &awake, 0);
		recv_settings_free(&svc.settings);
		return rc;
	}
	print_windows(&svc);
	rc = serve(&svc, once, &awake);
	recv_reload_ask_drop(&svc.reload_asker); /* it sees the end */
	recv_sd_notify("STOPPING=1");
	recv_service_report_final(&svc);
	service_close(&svc);
	pthread_sigmask(SIG_SETMASK, &awake, 0);
	recv_settings_free(&svc.settings);
	return rc;
}
