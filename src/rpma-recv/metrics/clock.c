#include "metrics/clock.h"

#include <time.h>

uint64_t recv_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int64_t recv_now_ms(void)
{
	return (int64_t)(recv_now_ns() / 1000000ull);
}
