/* A fake of the link under a receiver's session (sender/session.h's
 * recv_session_link): it records grants, replies and probes, says what the
 * test sets of the key check and of stalls, and binds a windowed writer's
 * two windows as a device would, without one. Shared by the session's
 * host tests. */
#ifndef TEST_FAKE_LINK_H
#define TEST_FAKE_LINK_H

#include "sender/session.h"

#include <stdbool.h>
#include <stdint.h>

struct fake_link {
	bool auth_ok; /* what the key check says */
	unsigned grants;
	unsigned replies;
	unsigned signaled;
	bool last_signaled;
	struct rs_msg last_reply;
	/* The writer's two windows, as a fake binds them: each one's key
	 * and first byte, 0 when it reaches nothing. */
	uint32_t key[2];
	uint64_t head[2];
	uint64_t end[2]; /* and where it ends */
	uint64_t last_need;
	unsigned newest;
	uint32_t next_key;
	unsigned moves;
	unsigned probes; /* of the link */
	/* The log's thread could not run for stall_ms, its wait ending
	 * late at stall_at_ms (0: never). */
	int64_t stall_at_ms, stall_ms;
};

/* The fake's windows end this far past the head, or the room asked for. */
#define FAKE_REACH (64u << 10)

/* The link's calls on l (windows: a windowed writer's, else none). */
struct recv_session_link fake_link_ops(struct fake_link *l, bool windows);

#endif
