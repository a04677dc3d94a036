/* A session: one sender and one receiver agreeing, over one connection, on
 * what the sender may do, then exchanging control messages. Both halves of
 * the handshake live here, as librpma's rpma_conn_req serves both sides:
 *
 *   sender                               receiver
 *   connect request (flags, method) -->  decode, admit or refuse
 *                                   <--  accept: the grant, or with a key a
 *                                        challenge
 *   (key) AUTH message: HMAC        -->  check
 *                                   <--  (key) the grant, as a message
 *   control messages (commit, hash) <->  replies
 *
 * A session owns the connection, the peer it was registered with and its
 * control-message slots: per slot one request and one reply buffer, a
 * receive always posted on each reply buffer. Besides the slots the caller
 * asks for, there is one more, the control slot, for the session's own
 * messages: the auth answer and the grant, then keepalives. */
#ifndef RS_SESSION_H
#define RS_SESSION_H

#include "proto/auth.h"
#include "proto/descriptor.h"
#include "proto/message.h"
#include "rdma/conn.h"

#include <stdbool.h>
#include <stdint.h>

struct rs_error;
struct rs_mr;
struct rs_peer;
struct rs_session;

/* ---- the sender's half ---- */

/* When each step of a connect ended (CLOCK_MONOTONIC, ns; 0: not reached):
 * where a short session's set-up time goes (rpma-send --stats). */
struct rs_session_times {
	uint64_t begun_ns;    /* rs_session_connect called */
	uint64_t routed_ns;   /* the device found, address and route resolved */
	uint64_t prepared_ns; /* queue pair made, message slots registered */
	uint64_t answered_ns; /* the receiver's reply to the request came */
	uint64_t granted_ns;  /* the challenge answered, the grant taken */
};

struct rs_session_request {
	const char *host;
	const char *port;
	int timeout_ms;
	struct rs_connect_req req;
	uint16_t slots;		       /* control messages in flight */
	uint32_t sends_per_slot;       /* work requests posted per slot */
	const struct rs_auth_key *key; /* NULL: none */
	/* Reconnecting: the token of the session to take over, else NULL. */
	const struct rs_session_token *takeover;
	bool busy_poll;
	/* Where the receiver's reject goes when it refuses (NULL: nowhere):
	 * its reason and hint of when to ask again. */
	struct rs_reject_info *refused;
	/* Where the time the receiver took to answer the connect request
	 * goes, in ms (-1: no answer came; NULL: nowhere). */
	int *answer_ms;
	/* Where the times of its steps go (NULL: nowhere); of the last
	 * attempt when it asked again in another protocol version. */
	struct rs_session_times *times;
};

/* Connects, asking for the log named in r->req.log_name ("" for the
 * receiver's only one), answers a challenge and takes the grant. It asks
 * in the newest protocol version it speaks, and once more in the newest
 * both speak when the receiver refuses that one saying which it speaks
 * (descriptor.h). Fails with
 * RS_E_UNREACHABLE (nothing listening), RS_E_BUSY (the receiver serves
 * someone else, or as many senders as it may), RS_E_REJECTED (refused, with
 * the receiver's reason and the logs a sender may use when it sent them),
 * RS_E_VERSION (the two speak no protocol version in common: the message
 * says both sides' versions and which to upgrade), RS_E_AUTH (a
 * key is needed, or ours was refused), RS_E_MALFORMED (an unusable grant),
 * or what the RDMA layer reports. Messages name the receiver HOST:PORT, and
 * HOST:PORT/NAME for a named log. */
int rs_session_connect(const struct rs_session_request *r,
		       struct rs_session **s, struct rs_error *err);

/* ---- the receiver's half ---- */

/* Decodes a sender's connect request. RS_E_VERSION or RS_E_MALFORMED. */
int rs_session_read_request(const struct rs_private_data *priv,
			    struct rs_connect_req *req, struct rs_error *err);

/* Rejects and deletes an incoming connection, telling the sender why and,
 * for a refused method, which methods are offered: in the protocol version
 * it asked in (0: ours). */
void rs_session_refuse(struct rs_conn **conn, uint8_t version, uint8_t reason,
		       uint8_t methods);
/* The same with the whole reject (the log names a sender may use). */
void rs_session_refuse_with(struct rs_conn **conn,
			    const struct rs_reject_info *info);

/* The reject reason that tells a sender about a request decode error. */
uint8_t rs_session_reject_reason(int errc);

struct rs_session_accept {
	uint8_t version;      /* the protocol version the request was in */
	struct rs_peer *peer; /* the receiver's, for this device */
	uint16_t slots;	      /* control messages a sender may send at once */
	bool busy_poll;
	/* What the sender may do through its queue pair from the accept on
	 * (rs_conn_accept's access): a reader reads; a writer with a key
	 * nothing until its grant (rs_session_set_access). */
	unsigned access;
	/* With a key: a challenge, and the grant only once it is answered.
	 * Without: the grant right away. */
	const struct rs_auth_key *key;
	const struct rs_accept_info *grant;
	/* The token the sender presented (zero: none); the answer to the
	 * challenge must cover it. */
	const struct rs_session_token *presented;
};

/* Sets up the session on an incoming connection and accepts it. On failure
 * the connection is refused (RS_REJECT_INTERNAL) and deleted. The accept
 * completes with the connection's ESTABLISHED event
 * (rs_conn_next_event). */
int rs_session_accept(struct rs_conn **conn, const struct rs_session_accept *a,
		      struct rs_session **s, struct rs_error *err);
/* The same in two steps, so that nothing is decided for a sender whose
 * connection cannot be set up (one that gave up waiting has its request
 * withdrawn: its queue pair cannot be made): the session set up (queue
 * pair, made ready allowing the peer nothing yet, and slots; a->grant not
 * read yet: a memory window the grant names can be bound before it is
 * sent), then the accept sent with a->grant, the queue pair allowing
 * a->access from then on.
 * A failure of the first refuses and deletes the connection; of the
 * second's answer leaves the session to the caller to delete
 * (rs_session_delete), once what it bound on the queue pair is gone (a
 * grant that cannot be encoded is refused and deleted). Between the two,
 * rs_session_refuse_prepared refuses it instead. */
int rs_session_prepare(struct rs_conn **conn, const struct rs_session_accept *a,
		       struct rs_session **s, struct rs_error *err);
int rs_session_answer(struct rs_session **s, const struct rs_session_accept *a,
		      struct rs_error *err);
void rs_session_refuse_prepared(struct rs_session **s, uint8_t reason);

/* Checks the answer to the challenge in a received message. RS_E_AUTH when
 * it is not the right one. */
int rs_session_check_auth(struct rs_session *s, const struct rs_msg *msg,
			  struct rs_error *err);

/* What the sender may do through its queue pair from now on (as
 * rs_session_accept's access), before its grant is sent. */
int rs_session_set_access(struct rs_session *s, unsigned access,
			  struct rs_error *err);

/* Sends the grant as a message, after a successful authentication. */
int rs_session_send_grant(struct rs_session *s,
			  const struct rs_accept_info *grant);

/* ---- both halves ---- */

void rs_session_delete(struct rs_session **s);

struct rs_conn *rs_session_conn(const struct rs_session *s);
struct rs_peer *rs_session_peer(const struct rs_session *s);
/* The protocol version the two agreed on. */
uint8_t rs_session_version(const struct rs_session *s);
/* Sender: what the receiver granted. */
const struct rs_accept_info *rs_session_grant(const struct rs_session *s);
uint16_t rs_session_slots(const struct rs_session *s);
/* The slot of the session's own messages (keepalives): the one after the
 * caller's slots. */
uint16_t rs_session_control_slot(const struct rs_session *s);

/* Encodes msg into slot's request buffer and sends it. */
int rs_session_send(struct rs_session *s, uint16_t slot,
		    const struct rs_msg *msg, uint64_t wr_id, unsigned flags);

/* A receive completion (op RS_OP_RECV) carries a message into a slot:
 * decodes it, posts the slot's receive again and says which slot it was.
 * RS_E_MALFORMED for bytes that are not a message. */
int rs_session_take(struct rs_session *s, const struct rs_completion *wc,
		    struct rs_msg *msg, uint16_t *slot, struct rs_error *err);

#endif
