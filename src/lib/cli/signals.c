#include "cli/signals.h"

#include <signal.h>
#include <string.h>

void rs_signals_install(void (*on_stop)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, 0);
	sigaction(SIGTERM, &sa, 0);
	signal(SIGPIPE, SIG_IGN);
}
