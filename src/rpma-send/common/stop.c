#include "common/stop.h"

volatile sig_atomic_t send_stop_requested;
