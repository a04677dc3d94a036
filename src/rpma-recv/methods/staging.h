/* The staged method's DRAM ring as a commit sees it: where a staged batch's
 * bytes are copied from. Its own header, so that the commit rule
 * (methods/commit.h) and the methods (methods/recv_method.h) can both name it
 * without naming each other. */
#ifndef RECV_STAGING_H
#define RECV_STAGING_H

#include <stdint.h>

struct recv_staging {
	const uint8_t *ring; /* NULL when staged is not offered */
	uint64_t length;
};

#endif
