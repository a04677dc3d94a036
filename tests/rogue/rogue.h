/* What the hostile senders share (rogue_sender's scenarios): the rogue's
 * connection and buffers, connecting with exactly the bytes a scenario
 * chose, waiting for what comes back, and the verdicts. Each scenario file
 * builds on these; rogue_sender.c holds the table and main. */
#ifndef ROGUE_H
#define ROGUE_H

#include "cli/endpoint.h"
#include "error.h"
#include "proto/auth.h"
#include "proto/descriptor.h"
#include "proto/message.h"
#include "rdma/conn.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROGUE_SAFE 0
#define ROGUE_UNSAFE 1
#define ROGUE_NORUN 2

#define RESOLVE_TIMEOUT_MS 3000
#define CONNECT_TIMEOUT_MS 5000
#define REPLY_TIMEOUT_MS 5000
#define CLOSE_GRACE_MS 1000
#define BUSY_RETRIES 40 /* the receiver may still be ending a session */
#define BUSY_PAUSE_MS 250
#define LAST_RESORT_S 120 /* SIGALRM ends a run that hangs anyway */

/* One registered buffer: receive slots (larger than a message, so an
 * oversized reply would show, and room for a grant that follows an auth
 * answer), the message to send, the payload to write. */
#define RECVS 4
#define RECV_SLOT 256
#define OFF_SEND (RECVS * RECV_SLOT)
#define SEND_ROOM 256
#define OFF_PAYLOAD 4096
#define PAYLOAD 8192
#define BUF_SIZE (OFF_PAYLOAD + PAYLOAD)

/* wr_id: kind in the high bits, receive slot in the low byte. */
#define WR_RECV 0x100u
#define WR_SEND 0x200u
#define WR_WRITE 0x300u
#define WR_KIND(id) ((id) & ~(uint64_t)0xff)

/* The status text of a write the remote NIC refused for its address or key:
 * ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR). */
#define REMOTE_ACCESS_ERROR "remote access error"
/* ... and one its queue pair may not do at all (a reader's may only read):
 * ibv_wc_status_str(IBV_WC_REM_INV_REQ_ERR). */
#define REMOTE_INVALID_REQUEST "remote invalid request error"

/* Posting fails only on a connection that is gone (RS_E_LOST). */
#define POST_LOST "the connection is gone"

struct rogue {
	struct rs_endpoint ep;
	char name[RS_LOG_NAME_MAX + 1]; /* the log the sessions ask for */
	struct rs_conn *conn;
	struct rs_peer *peer;
	uint8_t *buf;
	struct rs_mr *mr;
	struct rs_accept_info info;
	uint32_t seq;
	/* A gpspm writer granted windows: the newest key it was handed (also
	 * in info.data.rkey) and the one before. */
	uint32_t key, key_before;
	uint64_t key_end; /* where the newest key's window ends (file offset) */
	/* A challenge left unanswered (session_open_req): its nonce. */
	bool challenged;
	uint8_t nonce[RS_AUTH_NONCE_SIZE];
};

/* What came back for a connect request: rc is 0 (established, the accept's
 * private data in reply), RS_E_REJECTED (the reject's private data in reply)
 * or RS_E_UNREACHABLE (refused without private data, or another connection
 * event than accept or reject); error says which. */
struct connect_result {
	bool timed_out;
	int rc;
	struct rs_error error;
	struct rs_private_data reply;
};

/* What happened on an established connection after we sent something. */
struct outcome {
	bool replied;
	struct rs_msg reply;
	bool reply_malformed;
	struct rs_error reply_error; /* why, when reply_malformed */
	bool closed;
	char closed_how[96];
	bool write_done;
	struct rs_completion write;
	bool send_done;
	struct rs_completion send;
	/* The last receive's slot and length, for what is not a message (a
	 * grant after an auth answer). */
	uint32_t recv_slot, recv_len;
};

/* The shared key of ROGUE_AUTH_KEY (a file), or NULL: a session asked of
 * a log that wants one answers its challenge with it. */
extern const struct rs_auth_key *rogue_key;
/* Loads ROGUE_AUTH_KEY when it is set: 0, or -1 with a line said. */
int rogue_key_load(void);

/* The one line printed at the end: what each variant saw. */
extern char report[4096];

/* Adds a clause to the report, after a "; ". */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The worse of two results: misbehaviour over could-not-run over safe. */
int worse(int a, int b);
/* The monotonic clock, and a nap of ms that signals do not cut short. */
int64_t now_ms(void);
void sleep_ms(int ms);
/* A reply's status (RS_MSG_*) in words. */
const char *status_name(uint8_t status);
/* Disconnects and frees the connection, its buffer and its peer. */
void rogue_close(struct rogue *r);
/* Opens a connection and connects with priv, again while the receiver says
 * it is busy (it may still be ending our previous connection). */
int attempt(struct rogue *r, const void *priv, uint8_t len,
	    struct connect_result *res, char *err, size_t errlen);
/* What a request says the rogue can do: every method as a writer (a
 * scenario that needs flush checks its connection), none as a reader. */
uint8_t methods_of(uint8_t flags);
/* Connects with flags (0: as an ordinary sender) asking for method. */
int session_open_as(struct rogue *r, uint8_t flags, uint8_t method, char *err,
		    size_t errlen);
/* Connects with req (its log name filled in here) and takes the grant,
 * after answering a challenge with rogue_key; with answer false, a
 * challenge is left unanswered (r->challenged, its nonce in r->nonce; no
 * grant in r->info), as a peer without the key would. */
int session_open_req(struct rogue *r, struct rs_connect_req *req, bool answer,
		     char *err, size_t errlen);
/* Sends the answer to the challenge in r->nonce for token (rogue_key). */
int send_auth_answer(struct rogue *r, const struct rs_session_token *token,
		     char *err, size_t errlen);
/* Takes the grant that follows an answer, into r->info. */
int take_grant(struct rogue *r, char *err, size_t errlen);
/* A test's step the scenario waits at (ROGUE_SYNC_DIR): creates
 * DIR/NAME, then waits up to a minute for DIR/NAME.go (the test's answer,
 * e.g. once the receiver stopped at a rotation's seal). Nothing without
 * ROGUE_SYNC_DIR. -1 when no answer came. */
int sync_point(const char *name);
/* A case that could not run: says why, closes, and is NORUN. */
int cannot_run(struct rogue *r, const char *name, const char *why);
/* Collects completions and connection events for at most timeout_ms.
 * Returns at the first completion of kind stop_kind (0: none), or once the
 * connection is closed and what was posted has flushed (after a short
 * grace). */
void await(struct rogue *r, struct outcome *o, int timeout_ms,
	   uint64_t stop_kind);
/* Sends len bytes of the send area as a control message. */
int send_raw(struct rogue *r, uint32_t len);
/* Sends m as the next control message (its seq set). */
int send_msg(struct rogue *r, struct rs_msg *m);
/* A gpspm writer granted windows asks for its first key, as rpma-send
 * does (session_open does it). */
int take_window(struct rogue *r, char *err, size_t errlen);
/* A writer's session asking for method; a gpspm writer granted windows
 * takes its first key, as rpma-send does. */
int session_open(struct rogue *r, uint8_t method, char *err, size_t errlen);
/* Whether status is the receiver's NIC refusing an operation: for its key
 * or range, or for what the queue pair may do. */
bool refused_by_nic(const char *status);
/* Safe only when the remote NIC refused the case's RDMA operation (op:
 * WRITE or READ) with an access error (refused_by_nic). */
int access_verdict(const char *what, const char *op, const struct outcome *o);
/* On the open session, RDMA-writes dst.length bytes to dst, judges it by
 * access_verdict and closes the session. */
int write_judged(struct rogue *r, const char *name,
		 const struct rs_mr_desc *dst);

#endif
