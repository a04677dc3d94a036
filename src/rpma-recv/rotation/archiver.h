/* The receiver's archiver: a few threads that do every log's archiving
 * (rotation/rotation.h), so that a thousand logs with an archive cost a
 * few threads, asleep while no pool is rotate-at full and no writer waits
 * for a rebase, and the copies and the files' fsync never hold up the
 * threads that serve the logs' commits; an archive on a slow disk holds up
 * one of them, not the others' logs. */
#ifndef RECV_ARCHIVER_H
#define RECV_ARCHIVER_H

struct rs_error;
struct recv_archiver;

/* Its threads at most, started as logs are queued (none for a receiver
 * whose logs never rotate): as many logs' archives on slow disks at once
 * as it rides out without holding up the rest. */
#define RECV_ARCHIVER_THREADS 4

/* 0, or RS_E_NOMEM with err. */
int recv_archiver_start(struct recv_archiver **out, struct rs_error *err);
/* Every log using it must be closed first. */
void recv_archiver_stop(struct recv_archiver **a);

#endif
