/* One sender's session on the receiver, as a state machine driven by
 * events: the sender completing the connection, a control message, a
 * completion error or disconnect, a timer. It applies commits (by its
 * persistence method) and verify requests to the log under the commit rule
 * and answers through its link, which is the real connection in rpma-recv
 * and a fake in the unit tests.
 *
 *   ADMITTED --established--> SERVING            (no key)
 *   ADMITTED --established--> AUTHENTICATING     (key: challenge sent)
 *   AUTHENTICATING --right answer--> SERVING     (grant sent)
 *   SERVING --no message for the peer timeout--> CLOSING (a dead sender)
 *   SERVING --request refused--> REFUSING        (the refusal sent)
 *   REFUSING --refusal delivered, or a second--> CLOSING
 *   any --bad message, wrong key, deadline, error, disconnect--> CLOSING
 *
 * A refused sender gets its refusal before the connection goes: the reply
 * is a send the NIC may still hold when the session ends (on kernel 6.12
 * Soft-RoCE sends from a worker, after ibv_post_send returns), and tearing
 * the queue pair down would drop it.
 *
 * An idle sender keeps its session with keepalives, answered here; a
 * writer granted windows asks for its first key and gets the next with
 * its commits (reach/write_windows.h); a writer whose pool is full asks it to
 * be started over (rotation/rotation.h: the archiver's thread does the slow
 * part, the answer goes from the timer once it is over); a
 * writer replacing the log places its replacement and switches it in once
 * whole (rotation/generation.h); a reader asks where the log ends and may wait
 * for it to grow (answered from the timer, which the log's loop runs every
 * turn). */
#ifndef RECV_SESSION_H
#define RECV_SESSION_H

#include "methods/commit.h"
#include "pool/offset_word.h"
#include "pool/pmem_target.h"
#include "proto/message.h"
#include "reach/window_keys.h"
#include "sender/session_times.h"
#include "sender/verify_reply.h"

#include <stdbool.h>
#include <stdint.h>

struct recv_window_binding;

struct rs_error;
struct recv_method;
struct recv_log_counters;
struct recv_rotation;
struct recv_generation;

enum recv_session_state {
	RECV_SESSION_ADMITTED,	     /* accepted; the sender completes it */
	RECV_SESSION_AUTHENTICATING, /* challenged; the answer is due */
	RECV_SESSION_SERVING,	     /* committing and answering */
	RECV_SESSION_REFUSING, /* its refusal on the way; serves no more */
	RECV_SESSION_CLOSING,  /* over: the owner tears it down */
};

const char *recv_session_state_name(enum recv_session_state s);

/* What a session does to its connection. */
struct recv_session_link {
	void *ctx;
	int (*check_auth)(void *ctx, const struct rs_msg *msg,
			  struct rs_error *err);
	int (*send_grant)(void *ctx); /* truncates first when asked */
	int (*reply)(void *ctx, uint16_t slot, const struct rs_msg *reply,
		     bool signaled);
	/* A writer's windows (reach/write_windows.h): the one without the
	 * newest key moved to the head, with need bytes of room at least, the
	 * other's key dead too when reset; the binding (its key, where its
	 * accesses begin and end) in *b. Posted before the reply that carries
	 * it. NULL for a session without windows. */
	int (*window)(void *ctx, uint64_t head, uint64_t need, bool reset,
		      struct recv_window_binding *b);
	/* A probe of a silent sender's link (rs_conn_probe, signaled): its
	 * completion answers it (recv_session_on_probe_answered or _failed). */
	int (*probe)(void *ctx);
	/* How much of [since_ms, now] the log's thread could not run (its
	 * waits ended late: a host short of CPU, where Soft-RoCE's work
	 * starves too), which is no sender's silence. NULL: none. */
	int64_t (*stalled_ms)(void *ctx, int64_t since_ms);
	/* The pool went back under this writer's request (it started over,
	 * a replacement switched in): called before the writer hears of it,
	 * so that no reader's key reaches the bytes it writes next. NULL:
	 * nothing to do. */
	void (*rewound)(void *ctx);
};

struct recv_session_config {
	struct recv_pmem_target *target;
	/* Chosen once, at admission: the commit request it takes and what it
	 * does (methods/recv_method.h); NULL for a session that commits
	 * nothing. */
	const struct recv_method *method;
	struct recv_staging staging; /* the DRAM ring, for staged commits */
	/* The log's positions and archive: verify ranges, a writer's rebase
	 * (NULL: the pool alone, from position 0, no rotation). */
	struct recv_rotation *rotation;
	/* The log's replacement under way (NULL: none may be), and whether
	 * this writer asked to replace the log (RS_CONNECT_REPLACE). */
	struct recv_generation *gen;
	bool replace;
	struct recv_ring read_ring; /* verify: where ranges are copied */
	bool verify;		    /* the sender asked to verify */
	bool windows;	  /* a gpspm writer reaching the pool through windows */
	bool auth;	  /* a key is required */
	uint16_t credits; /* replies: one in this many is signaled */
	int64_t deadline_ms; /* for completing the connection / the answer */
	/* SERVING: the sender's link is probed after half of it in silence;
	 * a probe unanswered for the other half ends the session. */
	int64_t peer_timeout_ms;
	struct recv_log_counters *counters; /* the log's, or NULL */
};

/* A reader's wait for the log to grow, answered when it does (or a
 * quarter of the peer timeout passed, which keeps the session alive). */
struct recv_parked_wait {
	bool on;
	uint16_t slot;
	uint32_t seq;
	uint64_t offset;  /* the reader's log position */
	uint64_t content; /* the log's content then */
	int64_t since_ms;
};

/* How many of a writer's last commits a session remembers: more than a
 * sender has in flight (SHIP_DEPTH_MAX). */
#define RECV_SESSION_APPLIED 64

/* What makes a commit the same message again. */
struct recv_applied {
	uint8_t type;
	uint16_t flags;
	uint32_t seq, key;
	uint64_t offset, length, ring_offset;
};

struct recv_session {
	enum recv_session_state state;
	struct recv_session_config cfg;
	struct recv_session_link link;
	int64_t deadline_ms; /* ADMITTED, AUTHENTICATING, REFUSING: until */
	int64_t heard_ms;    /* the sender's last message */
	int64_t probed_ms;   /* the last probe of its link, or 0 */
	bool probe_out;	     /* that probe is not answered yet */
	uint32_t replies;
	struct recv_window_keys keys; /* a windowed writer's */
	uint64_t key_end;	      /* where its newest key's window ends */
	struct recv_parked_wait parked;
	/* A writer's rebase under way on the archiver's thread
	 * (rotation/rotation.h): answered from the timer once it is over. */
	struct {
		bool on;
		uint16_t slot;
		struct rs_msg req;
	} rebasing;
	/* The last commits applied, to know one that arrives again (the
	 * same message twice: seen on Soft-RoCE under a storm of
	 * retransmissions) from a request that breaks the rules. */
	struct recv_applied applied[RECV_SESSION_APPLIED];
	unsigned applied_next;
	uint64_t again;		  /* commits that arrived again, ignored */
	unsigned commit_requests; /* taken, for the tests' lost commit */
	uint64_t commits;
	uint64_t bytes;
	struct recv_session_times times; /* its steps, said at its end (-v) */
	/* A writer that commits alone (apm, flush): the write offset as the
	 * receiver last counted it; each advance seen counts as a commit. */
	uint64_t seen_head;
	/* Such a writer's stored offset that broke a rule (pool/offset_rule.h)
	 * and ended its session; rule OK: none did. */
	struct recv_offset_seen broken;
	bool served; /* it reached SERVING */
	char peer[64];
	char why[160]; /* why it is closing, for the log */
};

void recv_session_init(struct recv_session *s,
		       const struct recv_session_config *cfg,
		       const struct recv_session_link *link, const char *peer,
		       int64_t now_ms);

void recv_session_on_established(struct recv_session *s, int64_t now_ms);
void recv_session_on_message(struct recv_session *s, uint16_t slot,
			     const struct rs_msg *msg, int64_t now_ms);
/* A send of this session's completed: the peer has everything sent. */
void recv_session_on_sent(struct recv_session *s);
/* A malformed message, a failed completion or the connection's end. */
void recv_session_on_failure(struct recv_session *s, const char *why);
/* A probe of its link completed: the link is there. */
void recv_session_on_probe_answered(struct recv_session *s);
/* A probe of its link failed (the transport's status): the sender's host,
 * link or queue pair is gone. */
void recv_session_on_probe_failed(struct recv_session *s, const char *status,
				  int64_t now_ms);
void recv_session_on_timer(struct recv_session *s, int64_t now_ms);

/* A writer that commits alone (apm, flush) and serves: its stored offset
 * is checked and adopted now (pool/offset_word.h), as its timer does; one
 * that broke a rule closes the session. Nothing for other sessions. */
void recv_session_count_offset(struct recv_session *s);

/* The log's writer's queue pair is gone: a writer that commits alone (apm,
 * flush) can store no more, so its last word is settled
 * (pool/offset_word.h) and what it committed counted. The word it left,
 * and the rule it broke when it broke one (then put back), or the rule
 * OK. Nothing for other sessions. */
struct recv_offset_seen recv_session_settle_offset(struct recv_session *s);
/* Its windows are about to go: what they still reached counts too. */
void recv_session_windows_end(struct recv_session *s);

#endif
