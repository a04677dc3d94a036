#include "service.h"

#include "cli/exit_code.h"
#include "cli/log.h"
#include "error.h"
#include "rdma/listener.h"
#include "rdma/mr.h"
#include "rdma/peer.h"
#include "recv_session.h"
#include "session/session.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t recv_stop_requested;

#define RECV_POLL_MS 200 /* how often an idle loop looks at the stop flag */
#define RECV_HANDSHAKE_MS 5000 /* to complete the connection, to answer */

#define RECV_SESSIONS_MAX 8	  /* the log's holder and senders taking over */
#define RECV_BATCH_COMPLETIONS 64 /* per session per turn: fairness */

/* A connected sender: its connection and the session on top. */
struct active {
	struct active *next;
	struct rs_session *rs;
	struct recv_session s;
	struct rs_connect_req req;
	struct rs_session_token token; /* handed out with its grant */
	struct rs_mr *read_mr;	       /* the log, readable, for verify only */
	struct rs_mr *ring_read_mr;    /* the ring, readable, likewise */
	bool taken_over; /* its sender came back on a new connection */
	struct service *svc;
};

struct service {
	const struct recv_config *cfg;
	struct rs_pmem_target target;
	struct rs_listener *listener;
	struct recv_exposure exposure;
	bool exposed;
	struct active *sessions; /* every connected sender */
	unsigned nsessions;
	/* The one sender that may write (or verify) the log. Another is
	 * refused as busy, unless it presents this one's token: then it is
	 * the same sender, back after losing its connection. */
	struct active *holder;
	unsigned served; /* senders that reached the serving state */
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int expose_on(struct service *svc, const struct rs_conn *conn)
{
	if (svc->exposed && rs_peer_serves(svc->exposure.peer, conn))
		return 0;
	if (svc->exposed)
		recv_exposure_teardown(&svc->exposure);
	char err[256];
	svc->exposed = false;
	if (recv_exposure_setup(&svc->exposure, conn, &svc->target,
				&svc->cfg->exposure, err, sizeof(err))) {
		rs_err("%s", err);
		return -1;
	}
	svc->exposed = true;
	return 0;
}

/* Remote read of the log, for a verifying sender's session only; where the
 * device cannot register the pool, of the staging ring the receiver copies
 * ranges into. Deregistered when the session ends. */
static void grant_read(struct active *a, struct rs_accept_info *info)
{
	const struct rs_pmem_target *t = &a->svc->target;
	struct rs_peer *peer = a->svc->exposure.peer;
	struct rs_error err = {0};
	if (!rs_mr_reg(peer, t->base + t->start, t->end - t->start,
		       RS_MR_REMOTE_READ, &a->read_mr, &err))
		info->data_read =
		    rs_mr_describe(a->read_mr, RS_MR_USAGE_READ_SRC);
	else
		rs_verbose("no remote read of the pool for %s's verify (%s); "
			   "reading through the staging ring",
			   a->s.peer, err.msg);
	if (!rs_mr_reg(peer, a->svc->exposure.ring, a->svc->exposure.ring_len,
		       RS_MR_REMOTE_READ, &a->ring_read_mr, &err))
		info->staging_read =
		    rs_mr_describe(a->ring_read_mr, RS_MR_USAGE_READ_SRC);
}

/* What the sender may use, as of now: truncates first when asked, and
 * hands out a new session token. */
static int grant(struct active *a, struct rs_accept_info *info)
{
	struct service *svc = a->svc;
	struct rs_error err = {0};
	if (rs_auth_random(a->token.bytes, sizeof(a->token.bytes), &err)) {
		rs_err("sender %s: %s", a->s.peer, err.msg);
		return -1;
	}
	if (a->req.flags & RS_CONNECT_TRUNCATE) {
		rs_pmem_target_commit(&svc->target, svc->target.start);
		rs_info("log truncated at the request of %s", a->s.peer);
	}
	recv_exposure_describe(&svc->exposure, &svc->target, info);
	info->token = a->token;
	info->peer_timeout_ms = svc->cfg->peer_timeout_ms;
	if (a->req.flags & RS_CONNECT_VERIFY)
		grant_read(a, info);
	rs_verbose("sender %s connected at write offset %llu", a->s.peer,
		   (unsigned long long)info->write_offset_value);
	return 0;
}

/* ---- the list of sessions ---- */

static void session_end(struct service *svc, struct active *a)
{
	if (a->taken_over) {
		rs_verbose("sender %s: old connection ended after %llu commits",
			   a->s.peer, (unsigned long long)a->s.commits);
	} else if (a->s.served) {
		const struct rs_pmem_target *t = &svc->target;
		rs_info("sender %s done: %llu commits, %llu bytes, log at %llu "
			"of %llu bytes",
			a->s.peer, (unsigned long long)a->s.commits,
			(unsigned long long)a->s.bytes,
			(unsigned long long)(rs_pmem_target_write_offset(t) -
					     t->start),
			(unsigned long long)(t->end - t->start));
		svc->served++;
	} else if (a->s.why[0]) {
		rs_verbose("sender %s: %s", a->s.peer, a->s.why);
	}
	/* Destroys the queue pair: no write of this connection lands after
	 * this returns, which a takeover relies on. */
	rs_session_delete(&a->rs);
	rs_mr_dereg(&a->read_mr);
	rs_mr_dereg(&a->ring_read_mr);
	for (struct active **p = &svc->sessions; *p; p = &(*p)->next) {
		if (*p == a) {
			*p = a->next;
			break;
		}
	}
	if (svc->holder == a)
		svc->holder = 0;
	svc->nsessions--;
	free(a);
}

static bool presents_token_of(const struct rs_connect_req *req,
			      const struct active *holder)
{
	return holder && (req->flags & RS_CONNECT_TAKEOVER) &&
	       !memcmp(&req->token, &holder->token, sizeof(holder->token));
}

/* The sender of `a` is back on a new connection: its old one ends first. */
static int take_over(struct service *svc, struct active *a)
{
	struct active *old = svc->holder;
	if (old && old != a) {
		if (!presents_token_of(&a->req, old))
			return -1; /* someone else holds the log meanwhile */
		rs_info("sender %s takes its session over from %s", a->s.peer,
			old->s.peer);
		old->taken_over = true;
		session_end(svc, old);
	}
	svc->holder = a;
	return 0;
}

/* ---- the link of a recv_session: the real connection ---- */

static int link_check_auth(void *ctx, const struct rs_msg *msg,
			   struct rs_error *err)
{
	struct active *a = ctx;
	return rs_session_check_auth(a->rs, msg, err);
}

/* After a right answer: a sender taking its session over gets it now. */
static int link_send_grant(void *ctx)
{
	struct active *a = ctx;
	struct rs_accept_info info;
	if (take_over(a->svc, a) || grant(a, &info))
		return -1;
	return rs_session_send_grant(a->rs, &info);
}

static int link_reply(void *ctx, uint16_t slot, const struct rs_msg *reply,
		      bool signaled)
{
	struct active *a = ctx;
	return rs_session_send(a->rs, slot, reply, UINT32_MAX,
			       signaled ? RS_POST_SIGNALED : 0);
}

/* The session's configuration from the checked request. */
static struct recv_session_config session_config(struct service *svc,
						 const struct rs_connect_req *r)
{
	uint8_t methods = svc->exposure.methods;
	return (struct recv_session_config){
	    .target = &svc->target,
	    .staging = {.ring = svc->exposure.ring,
			.length = svc->exposure.ring_len},
	    .policy = {.allow_in_place =
			   methods & RS_METHOD_BIT(RS_METHOD_GPSPM),
		       .allow_staged =
			   methods & RS_METHOD_BIT(RS_METHOD_STAGED)},
	    .verify = r->flags & RS_CONNECT_VERIFY,
	    .auth = svc->cfg->auth_key != 0,
	    .credits = svc->cfg->exposure.slots,
	    .deadline_ms = RECV_HANDSHAKE_MS,
	    .peer_timeout_ms = svc->cfg->peer_timeout_ms,
	};
}

static struct active *session_new(struct service *svc,
				  const struct rs_connect_req *req,
				  const char *peer)
{
	struct active *a = calloc(1, sizeof(*a));
	if (!a)
		return 0;
	a->svc = svc;
	a->req = *req;
	struct recv_session_config cfg = session_config(svc, req);
	struct recv_session_link link = {a, link_check_auth, link_send_grant,
					 link_reply};
	recv_session_init(&a->s, &cfg, &link, peer, now_ms());
	a->next = svc->sessions;
	svc->sessions = a;
	svc->nsessions++;
	return a;
}

/* Accepts a checked request: the session starts ADMITTED. Without a key
 * the grant goes with the accept, so the sender holds the log from now;
 * with one, after its answer (a sender taking over: only then). */
static void admit(struct service *svc, struct rs_conn **conn,
		  const struct rs_connect_req *req, const char *peer)
{
	struct active *a = session_new(svc, req, peer);
	if (!a) {
		rs_session_refuse(conn, RS_REJECT_INTERNAL, 0);
		return;
	}
	struct rs_accept_info info;
	struct rs_session_accept acc = {.peer = svc->exposure.peer,
					.slots = svc->cfg->exposure.slots,
					.busy_poll = svc->cfg->busy_poll,
					.key = svc->cfg->auth_key,
					.grant = &info,
					.presented = &req->token};
	bool granted_now = !acc.key;
	if (granted_now && (take_over(svc, a) || grant(a, &info))) {
		rs_session_refuse(conn, RS_REJECT_INTERNAL, 0);
		session_end(svc, a);
		return;
	}
	if (!granted_now && !presents_token_of(req, svc->holder))
		svc->holder = a;
	struct rs_error err = {0};
	if (rs_session_accept(conn, &acc, &a->rs, &err)) {
		rs_err("sender %s: %s", peer, err.msg);
		session_end(svc, a);
	}
}

/* ---- connection requests ---- */

static bool allowed(const struct recv_config *cfg, const struct rs_conn *c)
{
	if (cfg->nallow == 0)
		return true;
	const struct sockaddr *peer = rs_conn_peer_addr(c);
	for (unsigned i = 0; i < cfg->nallow; i++) {
		if (rs_cidr_match(&cfg->allow[i], peer))
			return true;
	}
	return false;
}

/* Why a decoded request cannot be served now, or NULL. */
static const char *busy_reason(const struct service *svc,
			       const struct rs_connect_req *req)
{
	if (svc->holder && !presents_token_of(req, svc->holder))
		return "busy";
	if (svc->nsessions >= RECV_SESSIONS_MAX)
		return "too many connections";
	return 0;
}

/* A new sender: refused unless it passes every check, in an order that
 * describes and registers nothing for a sender that may not connect. */
static void on_request(struct service *svc, struct rs_listener_event *ev)
{
	char peer[64];
	rs_conn_peer_str(ev->conn, peer, sizeof(peer));
	if (!allowed(svc->cfg, ev->conn)) {
		rs_err("refusing sender %s: not in any --allow range", peer);
		rs_session_refuse(&ev->conn, RS_REJECT_NOT_ALLOWED, 0);
		return;
	}
	struct rs_connect_req req;
	struct rs_error err = {0};
	int rc = rs_session_read_request(&ev->priv, &req, &err);
	if (rc) {
		rs_err("refusing sender %s: %s", peer, err.msg);
		rs_session_refuse(&ev->conn, rs_session_reject_reason(rc), 0);
		return;
	}
	const char *busy = busy_reason(svc, &req);
	if (busy) {
		rs_info("refusing sender %s: %s with %s", peer, busy,
			svc->holder ? svc->holder->s.peer : "others");
		rs_session_refuse(&ev->conn, RS_REJECT_BUSY, 0);
		return;
	}
	if (expose_on(svc, ev->conn)) {
		rs_session_refuse(&ev->conn, RS_REJECT_INTERNAL, 0);
		return;
	}
	uint8_t methods = svc->exposure.methods;
	if (req.method != RS_METHOD_AUTO &&
	    !(methods & RS_METHOD_BIT(req.method))) {
		rs_err("refusing sender %s: it asks for method %s, which this "
		       "receiver does not offer",
		       peer, rs_method_name(req.method));
		rs_session_refuse(&ev->conn, RS_REJECT_METHOD, methods);
		return;
	}
	admit(svc, &ev->conn, &req, peer);
}

/* ---- events ---- */

static struct active *session_of(struct service *svc,
				 const struct rs_conn *conn)
{
	for (struct active *a = svc->sessions; a; a = a->next) {
		if (rs_session_conn(a->rs) == conn)
			return a;
	}
	return 0;
}

static void on_listener_event(struct service *svc, struct rs_listener_event *ev)
{
	if (ev->type == RS_LISTENER_REQUEST) {
		on_request(svc, ev);
		return;
	}
	struct active *a = ev->conn ? session_of(svc, ev->conn) : 0;
	if (a && ev->type == RS_LISTENER_ESTABLISHED)
		recv_session_on_established(&a->s, now_ms());
	else if (a && ev->type == RS_LISTENER_CLOSED)
		recv_session_on_failure(&a->s, "disconnected");
}

/* Handles one completion of a session. */
static void on_completion(struct active *a, const struct rs_completion *wc)
{
	/* A completion can overtake the listener's ESTABLISHED event; it
	 * proves the connection was up. */
	if (a->s.state == RECV_SESSION_ADMITTED)
		recv_session_on_established(&a->s, now_ms());
	if (!wc->ok) {
		if (!wc->flushed)
			rs_err("connection with %s failed: %s", a->s.peer,
			       wc->status);
		recv_session_on_failure(&a->s, wc->status);
		return;
	}
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
	recv_session_on_message(&a->s, slot, &msg, now_ms());
}

/* Takes a session's completions without waiting. True if there were. */
static bool take_completions(struct active *a)
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
			return n > 0; /* connection events: the listener's */
		on_completion(a, &wc);
	}
	return true;
}

static bool readable(int fd, int timeout_ms)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	return poll(&pfd, 1, timeout_ms) > 0;
}

/* Takes the connection events that are there. True if there were. */
static bool take_listener_events(struct service *svc)
{
	bool any = false;
	while (readable(rs_listener_fd(svc->listener), 0)) {
		struct rs_listener_event ev;
		struct rs_error err = {0};
		if (rs_listener_next_event(svc->listener, 0, &ev, &err)) {
			rs_verbose("%s", err.msg);
			break;
		}
		on_listener_event(svc, &ev);
		any = true;
	}
	return any;
}

/* Runs every session's timers and ends the sessions that are over. */
static void end_closed_sessions(struct service *svc)
{
	int64_t now = now_ms();
	struct active *a = svc->sessions;
	while (a) {
		struct active *next = a->next;
		recv_session_on_timer(&a->s, now);
		if (a->s.state == RECV_SESSION_CLOSING)
			session_end(svc, a);
		a = next;
	}
}

/* Sleeps until a connection event or a completion of any session, at
 * most the poll interval (timers are checked at that pace). */
static void wait_for_event(struct service *svc)
{
	struct pollfd pfd[RECV_SESSIONS_MAX + 1];
	nfds_t n = 0;
	pfd[n++] = (struct pollfd){.fd = rs_listener_fd(svc->listener),
				   .events = POLLIN};
	for (struct active *a = svc->sessions; a; a = a->next) {
		int comp_fd, cm_fd;
		rs_conn_fds(rs_session_conn(a->rs), &comp_fd, &cm_fd);
		pfd[n++] = (struct pollfd){.fd = comp_fd, .events = POLLIN};
	}
	poll(pfd, n, RECV_POLL_MS);
}

/* One turn: every session's completions, the connection events, the
 * timers; then sleep if there was nothing to do (or spin: --busy-poll). */
static void step(struct service *svc)
{
	bool busy = false;
	for (struct active *a = svc->sessions; a; a = a->next)
		busy |= take_completions(a);
	busy |= take_listener_events(svc);
	end_closed_sessions(svc);
	if (!busy && !svc->cfg->busy_poll)
		wait_for_event(svc);
}

static int service_open(struct service *svc, const struct recv_config *cfg)
{
	char err[512];
	if (rs_pmem_target_open(&svc->target, cfg->pool_path, cfg->create_size,
				err, sizeof(err))) {
		rs_err("%s", err);
		return RS_EXIT_USAGE;
	}
	struct rs_error lerr = {0};
	if (rs_listener_new(cfg->listen.host, cfg->listen.port, &svc->listener,
			    &lerr)) {
		rs_err("%s", lerr.msg);
		rs_pmem_target_close(&svc->target);
		return RS_EXIT_CONNECT;
	}
	return RS_EXIT_OK;
}

int recv_service_run(const struct recv_config *cfg)
{
	struct service svc;
	memset(&svc, 0, sizeof(svc));
	svc.cfg = cfg;
	int rc = service_open(&svc, cfg);
	if (rc)
		return rc;
	rs_info("serving %s (%llu bytes of log, %llu used) on %s:%s",
		cfg->pool_path,
		(unsigned long long)(svc.target.end - svc.target.start),
		(unsigned long long)(rs_pmem_target_write_offset(&svc.target) -
				     svc.target.start),
		cfg->listen.host[0] ? cfg->listen.host : "*", cfg->listen.port);
	while (!recv_stop_requested && !(cfg->once && svc.served))
		step(&svc);
	while (svc.sessions)
		session_end(&svc, svc.sessions);
	if (svc.exposed)
		recv_exposure_teardown(&svc.exposure);
	rs_listener_delete(&svc.listener);
	rs_pmem_target_close(&svc.target);
	return RS_EXIT_OK;
}
