/* The receiver's one clock: monotonic time for the loop's spinning (ns) and
 * for session deadlines and timeouts (ms). */
#ifndef RECV_CLOCK_H
#define RECV_CLOCK_H

#include <stdint.h>

uint64_t recv_now_ns(void);
int64_t recv_now_ms(void);

#endif
