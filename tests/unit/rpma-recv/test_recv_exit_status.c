/* rpma-recv's one map from an error code to its exit status
 * (rpma-recv(1), EXIT STATUS): 3 only when the RDMA listener could not be
 * set up, 2 for every other failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/exit_code.h"
#include "error.h"
#include "recv_exit_status.h"

static void every_code_has_its_status(void **state)
{
	(void)state;
	assert_int_equal(recv_exit_status(0), RS_EXIT_OK);
	/* rs_listener_new fails with these: no RDMA device or address */
	assert_int_equal(recv_exit_status(RS_E_PROVIDER), RS_EXIT_CONNECT);
	assert_int_equal(recv_exit_status(RS_E_UNREACHABLE), RS_EXIT_CONNECT);
	assert_int_equal(recv_exit_status(RS_E_NODEV), RS_EXIT_CONNECT);
	assert_int_equal(recv_exit_status(RS_E_INTERRUPTED),
			 RS_EXIT_INTERRUPTED);
	/* a bad option, configuration or pool */
	const int usage[] = {RS_E_NOMEM,     RS_E_REJECTED, RS_E_LOST,
			     RS_E_MALFORMED, RS_E_VERSION,  RS_E_AUTH,
			     RS_E_INVAL,     RS_E_TIMEOUT,  RS_E_BUSY,
			     RS_E_FULL,	     RS_E_DIVERGED, RS_E_DEGRADED,
			     RS_E_IO};
	for (size_t i = 0; i < sizeof(usage) / sizeof(*usage); i++)
		assert_int_equal(recv_exit_status(usage[i]), RS_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_code_has_its_status),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
