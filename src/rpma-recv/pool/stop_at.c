/* The tests' knob (stop_at.h). */
#include "pool/stop_at.h"

#include "cli/log.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *wanted_step;
static pthread_once_t wanted_once = PTHREAD_ONCE_INIT;

static void read_wanted(void)
{
	wanted_step = getenv("RPMA_RECV_STOP_AT");
}

void recv_stop_at(const char *step)
{
	pthread_once(&wanted_once, read_wanted);
	if (!wanted_step || strcmp(wanted_step, step))
		return;
	const char *hold = getenv("RPMA_RECV_HOLD_FILE");
	if (hold && access(hold, F_OK) == 0) {
		rs_info("holding at %s while %s exists (RPMA_RECV_HOLD_FILE)",
			step, hold);
		struct timespec nap = {.tv_nsec = 10 * 1000 * 1000};
		while (access(hold, F_OK) == 0)
			nanosleep(&nap, 0);
		rs_info("going on from %s", step);
		return;
	}
	rs_info("stopping at %s (RPMA_RECV_STOP_AT)", step);
	raise(SIGSTOP);
}
