#include "common/stop_for_tests.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void send_stop_for_tests_once(const char *step)
{
	static bool stopped;
	const char *want = getenv("RPMA_SEND_STOP_AT");
	if (stopped || !want || strcmp(want, step))
		return;
	stopped = true;
	raise(SIGSTOP);
}
