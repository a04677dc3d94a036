/* What the files of a sender's session share: session.c runs the state
 * machine and answers; the others serve one family of requests each. Not
 * for other rooms: they use sender/session.h. */
#ifndef RECV_SESSION_INTERNAL_H
#define RECV_SESSION_INTERNAL_H

#include "proto/message.h"
#include "sender/session.h"

#include <stdbool.h>
#include <stdint.h>

/* session.c */

/* Ends the session (once): fmt says why, in its closing line. */
void session_close_with(struct recv_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Sends the reply to req, unless the session closed meanwhile; a refusal
 * (ok false) closes it once the sender has it. committing: counted as a
 * commit. */
void session_answer(struct recv_session *s, uint16_t slot,
		    const struct rs_msg *req, const struct rs_msg *reply,
		    bool ok, bool committing);

/* session_commits.c */

/* Takes up what a writer that commits alone stored in the offset word. */
void session_count_head(struct recv_session *s);
bool session_keepalive(struct recv_session *s, const struct rs_msg *req,
		       struct rs_msg *reply);
bool session_commit(struct recv_session *s, const struct rs_msg *req,
		    struct rs_msg *reply);
/* Whether req is a commit applied already (delivered twice). */
bool session_commit_again(struct recv_session *s, const struct rs_msg *req);
/* req was applied: a second delivery of it is known. */
void session_commit_note(struct recv_session *s, const struct rs_msg *req);

/* session_changes.c */

/* A rebase, replacement, switch or window request, applied; false ends
 * the session (a refusal or a request that makes no sense). */
bool session_change(struct recv_session *s, uint16_t slot,
		    const struct rs_msg *req, struct rs_msg *reply);
/* The pool went back since `before` (its rewinds then). */
void session_tell_rewound(struct recv_session *s, uint64_t before);
/* Answers the rebase under way once it is over. */
void session_rebase_answer(struct recv_session *s);

/* session_windows.c */

/* Where a writer's next byte goes: its replacement's end, or the log's. */
uint64_t session_head_of(const struct recv_session_config *c);
/* Moves (or resets) the writer's windows to the head; the reply carries
 * the new key. False when the binding could not be posted. */
bool session_window_to_head(struct recv_session *s, bool reset, uint64_t need,
			    struct rs_msg *reply);
bool session_window_request(struct recv_session *s, const struct rs_msg *req,
			    struct rs_msg *reply);

/* session_reads.c */

/* A reader's WAIT: answered now, or parked until it is due. */
void session_on_wait(struct recv_session *s, uint16_t slot,
		     const struct rs_msg *req, int64_t now_ms);
bool session_wait_due(const struct recv_session *s, int64_t now_ms);
void session_answer_wait(struct recv_session *s);

#endif
