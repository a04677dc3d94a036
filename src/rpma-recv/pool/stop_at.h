/* The tests' knob: the receiver stops itself (SIGSTOP) at a named step
 * when RPMA_RECV_STOP_AT names it, so that a test can kill it at exactly
 * that step (a rotation's: archive-copy, archive-sealed, pool-rewound,
 * base-recorded; a switch's: switch-recorded, switch-moving,
 * switch-committed; a commit's: commit-data-landed, its batch checked
 * and in the pool or the staging ring, none of it made persistent yet,
 * and commit-data-persisted, its data persistent and the write offset
 * not yet moved over it; a takeover's:
 * takeover-old-ended, the old session ended and the new one not yet
 * granted). While the file
 * named by RPMA_RECV_HOLD_FILE exists, only the calling thread waits
 * instead, until it is removed. Read once: a step on the commit path
 * costs a load when the knob is not set. */
#ifndef RECV_POOL_STOP_AT_H
#define RECV_POOL_STOP_AT_H

void recv_stop_at(const char *step);

#endif
