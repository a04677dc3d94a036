/* The map from an enum rs_errc to rpma-send's exit status. */
#include "send_exit_status.h"

#include "cli/exit_code.h"
#include "error.h"

int exit_status_send(int code)
{
	if (code == 0)
		return RS_EXIT_OK;
	/* No default: a new code must be given its status here. */
	switch ((enum rs_errc)code) {
	case RS_E_NOMEM:
	case RS_E_INVAL:
	case RS_E_IO:
		return RS_EXIT_USAGE;
	case RS_E_PROVIDER:
	case RS_E_UNREACHABLE:
	case RS_E_LOST:
	case RS_E_TIMEOUT:
	case RS_E_NODEV:
		return RS_EXIT_CONNECT;
	case RS_E_INTERRUPTED:
		return RS_EXIT_INTERRUPTED;
	case RS_E_FULL:
		return RS_EXIT_LOG_FULL;
	case RS_E_REJECTED:
	case RS_E_BUSY:
	case RS_E_AUTH:
	case RS_E_VERSION:
	case RS_E_MALFORMED:
		return RS_EXIT_REFUSED;
	case RS_E_DIVERGED:
		return RS_EXIT_NOT_PREFIX;
	case RS_E_DEGRADED:
		return RS_EXIT_FEWER_REPLICAS;
	case RS_E_INPUT_LOST:
		return RS_EXIT_INPUT_LOST;
	case RS_E_INPUT_LEFT:
		return RS_EXIT_INPUT_LEFT;
	}
	return RS_EXIT_USAGE; /* not a code: trouble all the same */
}

int exit_status_verify(int code, bool same)
{
	if (code)
		return RS_EXIT_USAGE; /* cmp's "trouble" */
	return same ? RS_EXIT_OK : RS_EXIT_DIFFERENT;
}
