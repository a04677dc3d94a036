/* The sender's link to a receiver: one connection with its protection
 * domain, the per-slot control buffers (commit requests, replies, APM words)
 * and the receiver's grant decoded from the accept. Opened again, with the
 * same slots, when the sender reconnects after losing the receiver. */
#ifndef SEND_LINK_H
#define SEND_LINK_H

#include "auth.h"
#include "conn.h"
#include "descriptor.h"
#include "endpoint.h"
#include "message.h"
#include "peer.h"

#include <stdbool.h>
#include <stdint.h>

/* Control buffers of one batch slot. */
struct link_slot {
	uint8_t request[RS_MSG_SIZE];
	uint8_t reply[RS_ACCEPT_PRIVATE_MAX]; /* a reply, or the grant */
	uint64_t new_offset; /* APM: the write offset we store */
	uint64_t flush_read; /* APM: where flush reads land */
};

struct send_link {
	struct rs_conn conn;
	struct rs_peer peer;
	struct link_slot *slots;
	uint16_t nslots;
	struct ibv_mr *slots_mr;
	struct rs_accept_info info; /* what the receiver granted */
};

struct link_request {
	const struct rs_endpoint *remote;
	int timeout_ms;
	struct rs_connect_req req;
	uint16_t slots; /* batches the sender may keep in flight */
	const struct rs_auth_key *key; /* --auth-key, or NULL */
	bool busy_poll;		       /* --busy-poll */
};

/* Connects and decodes the grant. Returns an exit code (exit_code.h) after
 * reporting any failure; RS_EXIT_REFUSED with *busy set when the receiver is
 * serving someone else. */
int send_link_open(struct send_link *l, const struct link_request *r,
		   bool *busy);
void send_link_close(struct send_link *l);

/* Posts slot i's reply buffer again once its message was handled. */
int send_link_repost(struct send_link *l, uint16_t i);

#endif
