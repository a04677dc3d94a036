/* For the tests: RPMA_RECV_LOSE_COMMIT=N in the environment makes the Nth
 * commit request of each session as lost on the way: neither applied nor
 * answered, as Soft-RoCE was seen to lose commits under load (issue 69).
 * The writer's next commit is then refused as not where the log ends, and
 * the writer resumes on a new session (which loses its Nth too: N=1 is a
 * receiver that never lets a writer on). */
#ifndef RECV_LOST_COMMIT_H
#define RECV_LOST_COMMIT_H

#include <stdbool.h>

/* Whether a session's nth commit request (1 the first) is to be lost. */
bool recv_lost_commit(unsigned nth);

#endif
