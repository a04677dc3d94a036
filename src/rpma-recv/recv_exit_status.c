#include "recv_exit_status.h"

#include "cli/exit_code.h"
#include "error.h"

int recv_exit_status(int errc)
{
	switch (errc) {
	case 0:
		return RS_EXIT_OK;
	case RS_E_PROVIDER:
	case RS_E_UNREACHABLE:
	case RS_E_NODEV:
		return RS_EXIT_CONNECT;
	case RS_E_INTERRUPTED:
		return RS_EXIT_INTERRUPTED;
	default:
		return RS_EXIT_USAGE;
	}
}
