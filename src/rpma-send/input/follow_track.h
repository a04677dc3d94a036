/* Which files held a followed name, in the order they held it (input/
 * follow.h): each is opened as soon as the follower learns of it and held
 * open, so that neither a rename nor a removal takes it away.
 *
 * The directory's events (input/follow_watch.h) say when a file came to
 * the name; it is opened at once. One that was renamed on or away before
 * that is followed through the events to the name it has now, and opened
 * there; an open is kept only if no event says that name changed hands
 * meanwhile. One removed (or moved out of the directory) before it could
 * be opened is lost, and said so. Where events were lost, or are not to
 * be had (polling), a file at the name not known yet is taken last, after
 * the rotated copies beside it modified since everything was last known
 * (by their times, oldest first); until then an event that tells of a
 * file coming to the name is not taken (it cannot be placed after the
 * files whose events were lost), nor is a file missing where the events
 * left it taken for gone. */
#ifndef SEND_FOLLOW_TRACK_H
#define SEND_FOLLOW_TRACK_H

#include "input/follow_watch.h"

struct follower;

/* A change of a name in the directory (a follow_event_fn). */
void follow_track_event(void *ctx, const struct follow_event *ev);

/* Takes the events there are and opens the files they tell of, then
 * looks at the name itself. */
void follow_track_notice(struct follower *f);

#endif
