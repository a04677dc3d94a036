/* Routing a connection request to its log: by the name the sender gave
 * (none: the only log), if the sender's address is allowed there and the
 * service serves fewer than max-senders. A refused sender learns the
 * names it may use. One for a log not open yet is held until it opens
 * (service/held.h). */
#include "service/internal.h"

#include "cli/log.h"
#include "error.h"
#include "metrics/clock.h"
#include "rdma/conn.h"
#include "rdma/listener.h"
#include "session/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool allowed(const struct recv_log_settings *log,
		    const struct rs_conn *c)
{
	if (log->nallow == 0)
		return true;
	const struct sockaddr *peer = rs_conn_peer_addr(c);
	for (unsigned i = 0; i < log->nallow; i++) {
		if (recv_cidr_match(&log->allow[i], peer))
			return true;
	}
	return false;
}

/* The names of the logs this sender may use, comma separated, ending in
 * ",..." when they do not all fit. */
static void names_for(const struct service *svc, const struct rs_conn *c,
		      char *out, size_t size)
{
	size_t used = 0;
	out[0] = 0;
	for (const struct served_log *l = svc->logs; l; l = l->next) {
		if (l->retired || !l->settings.name[0] ||
		    !allowed(&l->settings, c))
			continue;
		size_t need = strlen(l->settings.name) + (used ? 1 : 0);
		if (used + need + 4 > size - 1) {
			snprintf(out + used, size - used, "%s...",
				 used ? "," : "");
			return;
		}
		used += (size_t)snprintf(out + used, size - used, "%s%s",
					 used ? "," : "", l->settings.name);
	}
}

static unsigned open_logs(const struct service *svc)
{
	unsigned n = 0;
	for (const struct served_log *l = svc->logs; l; l = l->next)
		n += !l->retired;
	return n;
}

/* The log a request asks for, or NULL with the reason to refuse. */
static struct served_log *find_log(struct service *svc, const char *name,
				   uint8_t *reason)
{
	struct served_log *only = 0;
	for (struct served_log *l = svc->logs; l; l = l->next) {
		if (l->retired)
			continue;
		if (name[0] && !strcmp(l->settings.name, name))
			return l;
		only = l;
	}
	unsigned configured = open_logs(svc) + svc->opening;
	if (!name[0] && only && configured == 1)
		return only;
	*reason = name[0] ? RS_REJECT_NO_SUCH_LOG : RS_REJECT_NAME_NEEDED;
	if ((name[0] || configured == 1) &&
	    recv_service_still_to_open(svc, name))
		*reason = RS_REJECT_STARTING;
	return 0;
}

/* Sends the refusal info, counted against log (NULL: one no log took). */
static void refuse_with(struct service *svc, struct rs_listener_event *ev,
			struct served_log *log, struct rs_reject_info *info)
{
	recv_counters_refused(log ? recv_log_worker_counters(log->worker)
				  : &svc->unrouted,
			      recv_refusal_of(info->reason));
	rs_session_refuse_with(&ev->conn, info);
}

/* Refuses the request (asked in protocol version; 0: one we do not
 * speak, told in our newest with the versions we speak). A log not open
 * yet or every seat taken: when to ask again. */
static void refuse(struct service *svc, struct rs_listener_event *ev,
		   struct served_log *log, uint8_t version, uint8_t reason,
		   const char *name)
{
	struct rs_reject_info info = {.version = version, .reason = reason};
	if (reason == RS_REJECT_STARTING)
		info.retry_ms = recv_service_pending_ms(svc, name);
	if (reason == RS_REJECT_LIMIT)
		info.retry_ms = recv_service_busy_retry_ms(svc);
	if (reason == RS_REJECT_NO_SUCH_LOG || reason == RS_REJECT_NAME_NEEDED)
		names_for(svc, ev->conn, info.logs, sizeof(info.logs));
	refuse_with(svc, ev, log, &info);
}

static struct recv_log_rules rules_of(const struct recv_log_settings *log)
{
	struct recv_log_rules r = {.methods = log->methods,
				   .has_key = log->auth_key_path[0] != 0};
	if (r.has_key)
		r.key = log->auth_key;
	return r;
}

/* A writer taking its session over with the token its log's writer holds
 * now replaces that session: it takes no seat of its own (log/seats.h).
 * Any other request, a made-up or stale token too, counts. */
static enum recv_seat_claim claim_seat(struct service *svc,
				       struct served_log *log,
				       const struct rs_connect_req *req)
{
	bool takes_over = (req->flags & RS_CONNECT_TAKEOVER) &&
			  !(req->flags & RS_CONNECT_VERIFY) &&
			  recv_log_worker_holds(log->worker, &req->token);
	/* The logs' threads claim under the same cap, as of the last
	 * request (a reload may change it). */
	atomic_store(&svc->counters.max_senders, svc->settings.max_senders);
	return recv_seats_claim(&svc->counters.senders,
				svc->settings.max_senders, takes_over);
}

/* A request in a protocol version we do not speak: told which we do (in
 * our newest). A newer sender that speaks one of them asks again in it:
 * said once a run (a fleet of them would fill the log), each with -v; an
 * older one must be upgraded, said each time. */
static void refuse_version(struct service *svc, struct rs_listener_event *ev,
			   const char *peer, uint8_t asked)
{
	if (asked > RS_PROTO_VERSION) {
		if (!svc->told_newer || rs_log_get_level() >= RS_LOG_VERBOSE)
			rs_info("sender %s asked in protocol version %u, this "
				"receiver speaks %u to %u: told so (a newer "
				"sender asks again in one of those, else it "
				"needs a newer receiver; said once, each with "
				"-v)",
				peer, asked, RS_PROTO_VERSION_MIN,
				RS_PROTO_VERSION);
		svc->told_newer = true;
	} else
		rs_err("refusing sender %s: it speaks protocol version %u, "
		       "this receiver %u to %u: upgrade the sender",
		       peer, asked, RS_PROTO_VERSION_MIN, RS_PROTO_VERSION);
	refuse(svc, ev, 0, 0, RS_REJECT_VERSION, "");
}

/* The sender's request, read; false when it was refused for it (a
 * protocol version we do not speak, a malformed request). */
static bool read_request(struct service *svc, struct rs_listener_event *ev,
			 const char *peer, struct rs_connect_req *req)
{
	struct rs_error err = {0};
	int rc = rs_session_read_request(&ev->priv, req, &err);
	if (rc == RS_E_VERSION) {
		refuse_version(svc, ev, peer, req->version);
		return false;
	}
	if (rc) {
		rs_err("refusing sender %s: %s", peer, err.msg);
		refuse(svc, ev, 0, req->version, rs_session_reject_reason(rc),
		       "");
		return false;
	}
	return true;
}

/* A request for a log not open yet: its log opens ahead of those no
 * sender asked for, and the request is held until it does (may_hold, room
 * permitting; not one that holds the listener's spare descriptor, which
 * the next such request needs) or refused as starting, the sender told
 * when to ask again. */
static void not_open_yet(struct service *svc, struct rs_listener_event *ev,
			 const char *peer, const struct rs_connect_req *req,
			 bool may_hold)
{
	if (req->log_name[0])
		recv_service_pend_first(svc, req->log_name);
	if (may_hold && !ev->out_of_descriptors &&
	    recv_held_add(&svc->held, ev, req, recv_now_ns())) {
		rs_verbose("sender %s: log '%s' is not open yet: the request "
			   "held until it opens",
			   peer, req->log_name);
		return;
	}
	rs_verbose("sender %s: log '%s' is not open yet: the sender told to "
		   "ask again",
		   peer, req->log_name);
	refuse(svc, ev, 0, req->version, RS_REJECT_STARTING, req->log_name);
}

/* The log the request asks for, or NULL when it was not served now: one
 * not open yet (held or refused), or none such (refused). */
static struct served_log *
log_asked(struct service *svc, struct rs_listener_event *ev, const char *peer,
	  const struct rs_connect_req *req, bool may_hold)
{
	uint8_t reason = 0;
	struct served_log *log = find_log(svc, req->log_name, &reason);
	if (log)
		return log;
	if (reason == RS_REJECT_STARTING) {
		not_open_yet(svc, ev, peer, req, may_hold);
		return 0;
	}
	if (req->log_name[0] && recv_service_failed_to_open(svc, req->log_name))
		rs_warn("refusing sender %s: log '%s' could not be opened "
			"(said above)",
			peer, req->log_name);
	else if (req->log_name[0])
		rs_warn("refusing sender %s: no log named '%s'", peer,
			req->log_name);
	else
		rs_warn("refusing sender %s: it names no log, and %u are "
			"served",
			peer, open_logs(svc));
	refuse(svc, ev, 0, req->version, reason, "");
	return 0;
}

/* Whether the sender's address may use log; refused when not. */
static bool address_allowed(struct service *svc, struct rs_listener_event *ev,
			    struct served_log *log, const char *peer,
			    uint8_t version)
{
	if (allowed(&log->settings, ev->conn))
		return true;
	if (log->settings.line)
		rs_warn("refusing sender %s: not in the allow list of log %s",
			peer, log->settings.name);
	else
		rs_warn("refusing sender %s: not in any --allow range", peer);
	refuse(svc, ev, log, version, RS_REJECT_NOT_ALLOWED, "");
	return false;
}

/* Hands the request to its log's thread with a seat under max-senders
 * (or the one of the session it takes over); refused when every seat is
 * taken. */
static void hand_over(struct service *svc, struct rs_listener_event *ev,
		      struct served_log *log, const char *peer,
		      const struct rs_connect_req *req)
{
	enum recv_seat_claim claim = claim_seat(svc, log, req);
	if (claim == RECV_SEAT_NONE) {
		rs_warn("refusing sender %s: %u senders connected, the most "
			"max-senders allows",
			peer, svc->settings.max_senders);
		refuse(svc, ev, log, req->version, RS_REJECT_LIMIT, "");
		return;
	}
	if (claim == RECV_SEAT_TAKEN)
		recv_counters_connected(recv_log_worker_counters(log->worker));
	struct recv_log_rules rules = rules_of(&log->settings);
	recv_log_worker_hand_over(log->worker, ev->conn, req, peer, &rules,
				  claim);
	memset(&rules.key, 0, sizeof(rules.key));
}

/* Its sender gave up on it before it was answered (this host short of
 * CPU): nobody waits for an answer, and it takes no seat: dropped. */
static bool withdrawn(struct rs_listener_event *ev, const char *peer)
{
	if (!rs_conn_withdrawn(ev->conn))
		return false;
	rs_verbose("sender %s gave up on its request before it was "
		   "answered: dropped",
		   peer);
	rs_conn_delete(&ev->conn);
	return true;
}

/* Refused unless it passes every check, in an order that describes and
 * registers nothing for a sender that may not connect. */
static void route_request(struct service *svc, struct rs_listener_event *ev,
			  const char *peer, const struct rs_connect_req *req,
			  bool may_hold)
{
	struct served_log *log = log_asked(svc, ev, peer, req, may_hold);
	if (!log || !address_allowed(svc, ev, log, peer, req->version))
		return;
	if (ev->out_of_descriptors) { /* answered, not served */
		recv_descriptors_say_starved(&svc->starved, peer);
		/* No time to ask again: the limit is the operator's to raise
		 * (said in the log), so the sender ends as refused (exit 5). */
		struct rs_reject_info full = {.version = req->version,
					      .reason = RS_REJECT_LIMIT};
		refuse_with(svc, ev, log, &full);
		return;
	}
	hand_over(svc, ev, log, peer, req);
}

void recv_service_route(struct service *svc, struct rs_listener_event *ev)
{
	char peer[64];
	rs_conn_peer_str(ev->conn, peer, sizeof(peer));
	struct rs_connect_req req;
	if (!withdrawn(ev, peer) && read_request(svc, ev, peer, &req))
		route_request(svc, ev, peer, &req, true);
}

static bool still_opening(const void *svc, const char *name)
{
	return recv_service_still_to_open(svc, name);
}

void recv_service_route_held(struct service *svc, uint64_t now_ns)
{
	struct recv_held_request *r;
	while (
	    (r = recv_held_take_due(&svc->held, still_opening, svc, now_ns))) {
		char peer[64];
		rs_conn_peer_str(r->ev.conn, peer, sizeof(peer));
		if (!withdrawn(&r->ev, peer))
			route_request(svc, &r->ev, peer, &r->req, false);
		free(r);
	}
}
