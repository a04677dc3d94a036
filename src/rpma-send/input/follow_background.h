/* A thread of the follower's own that takes the directory's events and
 * opens the files they tell of as they come (follow_track_notice),
 * whatever the sender is doing meanwhile: waiting for a connection
 * attempt to a receiver that is away, or with its window full. Without
 * it a file that comes to the name and is compressed and removed within
 * one such wait (compress without delaycompress) would be gone before
 * the sender looked. It wakes the sender, through a descriptor of its own,
 * whenever events came. The follower's lock keeps it and the reader
 * apart. */
#ifndef SEND_FOLLOW_BACKGROUND_H
#define SEND_FOLLOW_BACKGROUND_H

#include <pthread.h>
#include <stdbool.h>

struct follow_background {
	bool running;
	pthread_t thread;
	int stop_fd; /* an eventfd: the thread ends */
	int wake_fd; /* an eventfd: events came, the reader may look */
};

struct follower;

/* Starts the thread (the follower's lock not held). False when it
 * cannot: the follower then notices only when called. */
bool follow_background_start(struct follower *f);

/* Ends the thread, if any (the lock not held). */
void follow_background_stop(struct follower *f);

/* The reader was woken: the wake descriptor readable no more. */
void follow_background_woken(struct follower *f);

#endif
