/* What the service is made of, shared by its loop and reloads
 * (service/service.c), the routing of connection requests (service/routing.c)
 * and its reports to operators (service/report.c). */
#ifndef RECV_SERVICE_INTERNAL_H
#define RECV_SERVICE_INTERNAL_H

#include "log/threads.h"
#include "log/worker.h"
#include "metrics/counters.h"
#include "service/descriptors.h"
#include "service/held.h"
#include "service/opener.h"
#include "service/reload_ask.h"
#include "service/service.h"
#include "service/status_line.h"

struct rs_listener;
struct rs_listener_event;

/* A log as the service knows it: its settings and its worker. */
struct served_log {
	struct served_log *next;
	unsigned order; /* its place in the configuration (a reload's: after) */
	struct recv_log_settings settings;
	struct recv_log_worker *worker;
	bool retired; /* removed by a reload: takes no new senders */
};

/* A log not opened yet (service/opening.c): waiting its turn, then in the
 * opener's hands until its result is taken. */
struct pending_log {
	struct pending_log *next;
	/* in service.settings, or `added`: a reload's, whose settings the
	 * reload frees, so its own copy */
	const struct recv_log_settings *settings;
	struct recv_log_settings *added;
	bool asked; /* a sender asked for it: it opens before the others */
};

struct service {
	struct recv_settings_source source;
	struct recv_settings settings; /* the globals in force */
	struct served_log *logs;       /* the logs opened, the last first */
	struct pending_log *pending;   /* the ones still to open, in order */
	struct pending_log *handed;    /* the ones in the opener's hands */
	struct recv_opener *opener;    /* opens them, side by side */
	unsigned added_opened;	       /* a reload's logs opened, for order */
	unsigned opening;	       /* those and the one opening now */
	unsigned opened_since;	       /* opened since opening_since_ns */
	unsigned failed;	       /* could not be opened (said) */
	int failed_rc;		       /* the last such failure's */
	bool opened;		       /* every log opened or failed */
	bool ready; /* READY=1 said since the last RELOADING=1 */
	struct recv_reload_asker reload_asker; /* waits for the reload */
	enum recv_reload_answer reload_answer; /* what it is told at READY=1 */
	uint64_t opening_since_ns;	       /* when opening began */
	uint64_t open_began_ns;		/* when the opener took its log */
	struct recv_held held;		/* requests waiting for their log */
	struct recv_threads *threads;	/* serve the logs */
	struct recv_archiver *archiver; /* archives them */
	struct rs_listener *listener;
	struct recv_counters counters;
	struct recv_log_counters unrouted; /* refusals that named no log */
	struct recv_status_line status;	   /* for `systemctl status` */
	uint64_t metrics_due_ns; /* when the metrics file is written */
	bool metrics_failing;	 /* its last write failed (said once) */
	struct recv_descriptors_starved starved; /* refusals for want of one */
	bool told_newer; /* a newer sender's version refusal said once */
};

/* What the service tells operators (service/report.c): the status line
 * for `systemctl status` when it changed (head, e.g. "READY=1\n", sent
 * always), and the metrics file when it is due. */
void recv_service_report(struct service *svc, const char *head,
			 uint64_t now_ns);
/* The metrics file once more, as the service stops. */
void recv_service_report_final(struct service *svc);

/* A log's start, in two halves: the opening of its pool and its worker
 * (the pool looked at already, at the start before listening or as a
 * reload adds the log), on the opener's thread (a recv_open_fn
 * whose ctx is the service: it reads only what a start fixes), and the
 * loop's part once it ended (rc, err its result): served and said, or the
 * failure said. */
int recv_service_log_open(void *svc, const struct recv_log_settings *s,
			  struct recv_log_worker **out, struct rs_error *err);
int recv_service_log_opened(struct service *svc,
			    const struct recv_log_settings *s,
			    struct recv_log_worker *w, int rc,
			    struct rs_error *err);

/* Every configured log is to be opened (service/opening.c): none serves
 * yet. */
void recv_service_pend(struct service *svc);
/* A log a reload adds is to be opened, after those pending (its settings
 * copied: the reload's are freed): the loop answers requests while its
 * pool is made, and says "log NAME added" once it serves it. 0, or
 * RS_E_NOMEM said. */
int recv_service_pend_added(struct service *svc,
			    const struct recv_log_settings *s);
/* Frees what is still to open, as the service stops (the opener
 * stopped). */
void recv_service_pending_free(struct service *svc);
/* The loop's part in the opening: a log the opener is done with served
 * (or its failure said), the next one handed to it. 0, or when no log
 * could be opened and none is left, the last failure's rs_errc. */
int recv_service_open_turn(struct service *svc);
/* Whether the log of that name ("": any) is still to open: waiting its
 * turn or in the opener's hands. */
bool recv_service_still_to_open(const struct service *svc, const char *name);
/* Whether the log of that name is configured but could not be opened. */
bool recv_service_failed_to_open(struct service *svc, const char *name);
/* The log of that name, still to open, opens after the others asked for
 * and before the rest: a sender asked for it (a restarted receiver of a
 * thousand logs opens the ones asked for first, in the order asked, not
 * in the configuration's order). */
void recv_service_pend_first(struct service *svc, const char *name);
/* When the log of that name ("": the first one) will be open, a guess in
 * ms from the pace so far (50 to 10000), or 0 when it is not still to
 * open. */
uint16_t recv_service_pending_ms(const struct service *svc, const char *name);

/* Checks a connection request and hands it to its log, or refuses it,
 * or holds it while its log opens (service/held.h). */
void recv_service_route(struct service *svc, struct rs_listener_event *ev);
/* The held requests that are due routed: served now that their log is
 * open, or refused (as starting when their time is up). */
void recv_service_route_held(struct service *svc, uint64_t now_ns);

/* Requests handed over that their log's thread has not taken within
 * RECV_ANSWER_MS (log/config.h) are refused as busy, with a hint of when to ask
 * again (service/answering.c): every request is answered within about that,
 * whatever its log's thread is doing. */
void recv_service_answer_late(struct service *svc, uint64_t now_ns);
/* The hint: about how long the logs' threads take to work through the
 * requests waiting now, spread so that those told together do not all
 * come back together (ms). */
uint16_t recv_service_busy_retry_ms(const struct service *svc);

#endif
