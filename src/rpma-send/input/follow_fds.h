/* The descriptors a follower holds: one per file it has open, read or
 * waiting (rotated copies while the receiver is away, a copytruncate's
 * copies). The connection needs some too, and a reconnect that finds none
 * (EMFILE) ends the stream once --retry runs out while the files wait.
 * So the follower raises the soft limit to the hard one when it starts,
 * and its opens keep FOLLOW_FDS_RESERVE descriptors free: an open that
 * would not is refused as out of files, and the follower stops opening
 * (it says so, skips nothing) until the files before are done. */
#ifndef SEND_FOLLOW_FDS_H
#define SEND_FOLLOW_FDS_H

#define FOLLOW_FDS_RESERVE 64

/* open(2) of a file to hold: -1 with errno EMFILE when fewer than
 * FOLLOW_FDS_RESERVE descriptors below the limit would be left free. */
int follow_fds_open(const char *path, int flags);

#endif
