#include "sender/lost_commit.h"

#include <pthread.h>
#include <stdlib.h>

static unsigned long lose; /* 0: none */

static void read_lose(void)
{
	const char *n = getenv("RPMA_RECV_LOSE_COMMIT");
	lose = n ? strtoul(n, 0, 10) : 0;
}

bool recv_lost_commit(unsigned nth)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, read_lose);
	return lose && nth == lose;
}
