#include "connect/connect.h"

#include "cli/log.h"
#include "common/stats.h"
#include "common/stop.h"
#include "connect/hint.h"
#include "error.h"
#include "session/session.h"

#include <errno.h>
#include <string.h>
#include <time.h>

_Static_assert(sizeof(((struct rs_target *)0)->name) ==
		   sizeof(((struct rs_connect_req *)0)->log_name),
	       "a target's log name fits the connect request as it is");

static void report(const struct send_peer *p, const struct rs_error *err)
{
	if (err->code == RS_E_AUTH && !p->key)
		rs_err("%s; give the shared key with --auth-key FILE",
		       err->msg);
	else if (err->code == RS_E_AUTH && err->sys_errno == EACCES)
		rs_err("%s (check that both sides use the same --auth-key)",
		       err->msg);
	else if (err->code == RS_E_UNREACHABLE &&
		 err->sys_errno == ECONNREFUSED)
		rs_err("%s; is rpma-recv running on that address and port?",
		       err->msg);
	else
		rs_err("%s", err->msg);
}

static void nap_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR && !send_stop_requested)
		;
}

/* Connects; asks again when the receiver says when (it is opening the
 * log, busy, or full for now): here, or, given `later`, in the caller's
 * loop (later->next_ms says when; the caller's loop must not sleep). */
static int connect_once_open(struct rs_session_request *r,
			     struct rs_session **rs, struct rs_error *err,
			     struct send_hint_wait *later)
{
	struct rs_reject_info refused;
	struct send_hint_wait own = {0};
	struct send_hint_wait *w = later ? later : &own;
	int answer_ms = -1;
	r->refused = &refused;
	r->answer_ms = &answer_ms;
	for (;;) {
		memset(&refused, 0, sizeof(refused));
		answer_ms = -1;
		int rc = rs_session_connect(r, rs, err);
		if (answer_ms >= 0)
			rs_verbose("%s:%s: connect request answered in %d ms",
				   r->host, r->port, answer_ms);
		/* sets w->next_ms on every answer: 0 unless asked again */
		if (!send_hint_wait_next(w, rc, &refused,
					 send_stats_now_ns()) ||
		    send_stop_requested)
			return rc;
		rs_verbose("%s:%s %s; asking again in %u ms", r->host, r->port,
			   send_hint_of(rc, &refused), w->next_ms);
		if (later)
			return rc;
		nap_ms(w->next_ms);
	}
}

/* The steps of this process's first session (--stats' phases). */
static struct rs_session_times first_times;

const struct rs_session_times *send_connect_first_times(void)
{
	return &first_times;
}

int send_connect(const struct send_peer *p, struct rs_connect_req req,
		 uint16_t slots, uint32_t sends_per_slot,
		 struct rs_session **rs)
{
	struct rs_session_times times;
	memcpy(req.log_name, p->remote->name, sizeof(req.log_name));
	struct rs_session_request r = {
	    .host = p->remote->endpoint.host,
	    .port = p->remote->endpoint.port,
	    .timeout_ms = p->timeout_ms,
	    .req = req,
	    .slots = slots,
	    .sends_per_slot = sends_per_slot,
	    .key = p->key,
	    .takeover = p->takeover,
	    .busy_poll = p->busy_poll,
	    .times = &times,
	};
	struct rs_error err = {0};
	int rc = connect_once_open(&r, rs, &err, p->later);
	if (!rc && !first_times.granted_ns)
		first_times = times;
	if (!rc)
		return 0;
	if (send_stop_requested)
		return RS_E_INTERRUPTED;
	if (p->later && p->later->next_ms)
		return rc; /* to be asked again, not a failure yet */
	report(p, &err);
	/* The memory a connection takes (its queue pair, its registered
	 * message slots) is the RDMA stack's: running out of it is failing to
	 * connect (exit 3), not the sender's own buffers (RS_E_NOMEM, 2). */
	return rc == RS_E_NOMEM ? RS_E_PROVIDER : rc;
}
