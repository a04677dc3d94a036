/* The descriptors a follower holds: one per file it has open, read or
 * waiting (rotated copies while the receiver is away, a copytruncate's
 * copies). The connection needs some too, and a reconnect that finds none
 * (EMFILE) ends the stream once --retry runs out while the files wait.
 * So the follower raises the soft limit to the hard one when it starts,
 * and its opens keep a reserve free (FOLLOW_FDS_RESERVE, or an eighth of a
 * limit too small for it, one at least): an open that would not is
 * refused as out of files, and the follower stops opening (it says so,
 * skips nothing) until the files before are done. */
#ifndef SEND_FOLLOW_FDS_H
#define SEND_FOLLOW_FDS_H

#define FOLLOW_FDS_RESERVE 64

/* The descriptors kept free under a limit of `limit`. */
unsigned long long follow_fds_reserve(unsigned long long limit);

/* open(2) of a file to hold: -1 with errno EMFILE when fewer than the
 * reserve would be left free below the limit. */
int follow_fds_open(const char *path, int flags);

#endif
