/* The receiver's open files (descriptors): each log holds two (its pool,
 * its inbox) and each connected sender two more (its connection's event
 * channel and completion channel), so a fleet needs more than a shell's
 * usual 1024. The limit is raised as far as the process may, what is left
 * for senders is said at start when it is less than max-senders asks, and
 * a request that finds the limit reached is refused as full with one line
 * naming the limit to raise. */
#ifndef RECV_SERVICE_DESCRIPTORS_H
#define RECV_SERVICE_DESCRIPTORS_H

#include <stdint.h>

/* What one connected sender holds. */
#define RECV_DESCRIPTORS_PER_SENDER 2u

/* Once the logs are open: says, as a warning, when the limit leaves room
 * for fewer senders than max_senders. */
void recv_descriptors_check_room(unsigned max_senders);

/* Requests refused for want of a descriptor: said at most once in ten
 * seconds, with how many since. */
struct recv_descriptors_starved {
	uint64_t said_ns;
	unsigned unsaid;
};
void recv_descriptors_say_starved(struct recv_descriptors_starved *st,
				  const char *peer);

#endif
