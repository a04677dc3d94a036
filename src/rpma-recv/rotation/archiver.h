/* The receiver's archiver: one thread that does every log's archiving
 * (rotation/rotation.h), so that a thousand logs with an archive cost one
 * thread, asleep while no pool is rotate-at full and no writer waits for
 * a rebase, and the copies and the files' fsync never hold up the threads
 * that serve the logs' commits. */
#ifndef RECV_ARCHIVER_H
#define RECV_ARCHIVER_H

struct rs_error;
struct recv_archiver;

/* 0, or RS_E_NOMEM with err. */
int recv_archiver_start(struct recv_archiver **out, struct rs_error *err);
/* Every log using it must be closed first. */
void recv_archiver_stop(struct recv_archiver **a);

#endif
