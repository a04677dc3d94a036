#include "replicas/replica_keys.h"

#include "proto/message.h"

/* How soon after a new key a paused stream names it. */
#define REPLICA_KEY_ACK_NS 2000000ull

void replica_keys_start(struct replica_keys *k)
{
	*k = (struct replica_keys){0};
}

/* Whether the key msg brings revoked every older one, as its receiver
 * binds it: the reply to what was sent with nothing else in flight (a lone
 * commit, a window request, a rebase, replacement or switch); a stream's
 * commits and keepalives keep the key before. */
static bool revokes_older(const struct replica_keys *k,
			  const struct rs_msg *msg)
{
	if (msg->type == RS_MSG_COMMIT_DONE)
		return k->lone_out;
	return msg->type != RS_MSG_KEEPALIVE_DONE;
}

void replica_keys_heard(struct replica_keys *k, const struct rs_msg *msg,
			uint64_t now_ns)
{
	if (msg->key && msg->key != k->ids.newest) {
		rs_window_keys_bind(&k->ids, msg->key, revokes_older(k, msg));
		k->newest_end = msg->key_end;
		k->heard_ns = now_ns;
	}
	/* The reply to a lone commit: its receiver revoked every older key,
	 * so the new one needs no keepalive to name it. */
	if (msg->type == RS_MSG_COMMIT_DONE && k->lone_out) {
		k->lone_out = false;
		k->named = k->ids.newest;
	}
	if (msg->type == RS_MSG_KEEPALIVE_DONE) {
		k->keepalive_ns = 0;
		k->keepalive_asks = false;
	}
}

void replica_keys_posted(struct replica_keys *k, bool lone)
{
	k->named = k->ids.newest;
	if (lone)
		k->lone_out = true;
}

/* Whether a keepalive would name a key: one heard that no commit named,
 * and no lone commit out to revoke it. */
static bool names_a_key(const struct replica_keys *k)
{
	return k->ids.newest != k->named && !k->lone_out;
}

uint64_t replica_keys_keepalive_at(const struct replica_keys *k,
				   uint64_t last_sent_ns,
				   uint64_t peer_timeout_ns)
{
	if (k->keepalive_ns)
		return 0; /* one at a time */
	uint64_t at = last_sent_ns + peer_timeout_ns / 4;
	uint64_t ack = k->heard_ns + REPLICA_KEY_ACK_NS;
	if (names_a_key(k) && ack < at)
		at = ack;
	return at;
}

uint32_t replica_keys_keepalive_sent(struct replica_keys *k, uint64_t now_ns)
{
	uint32_t key = names_a_key(k) ? k->ids.newest : 0;
	if (key)
		k->named = key;
	k->keepalive_ns = now_ns;
	k->keepalive_asks = key != 0;
	return key;
}

uint64_t replica_keys_rebase_keepalive_at(const struct replica_keys *k,
					  uint64_t rebase_ns,
					  uint64_t last_sent_ns,
					  uint64_t peer_timeout_ns)
{
	if (k->keepalive_ns)
		return 0; /* one at a time */
	uint64_t from = last_sent_ns > rebase_ns ? last_sent_ns : rebase_ns;
	return from + peer_timeout_ns / 2;
}

void replica_keys_asked(struct replica_keys *k, uint64_t now_ns)
{
	k->keepalive_ns = now_ns;
	k->keepalive_asks = true;
}

void replica_keys_probe_answered(struct replica_keys *k)
{
	if (!k->keepalive_asks)
		k->keepalive_ns = 0;
}
