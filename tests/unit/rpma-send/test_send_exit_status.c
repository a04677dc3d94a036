/* rpma-send's one map from an error code to its exit status: every code,
 * for a send and for --verify, against the numbers rpma-send(1) gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "error.h"
#include "send_exit_status.h"

struct row {
	int code;
	int send; /* the status rpma-send(1) gives a send for it */
};

/* Every code, RS_E_NOMEM (-1) to RS_E_LAST, once. */
static const struct row rows[] = {
    {RS_E_NOMEM, 2},	    /* local trouble */
    {RS_E_PROVIDER, 3},	    /* cannot connect: no RDMA device */
    {RS_E_UNREACHABLE, 3},  /* nothing listening */
    {RS_E_REJECTED, 5},	    /* refused by the receiver */
    {RS_E_LOST, 3},	    /* connection lost */
    {RS_E_MALFORMED, 5},    /* a receiver that breaks the protocol */
    {RS_E_VERSION, 5},	    /* another protocol version */
    {RS_E_AUTH, 5},	    /* auth key missing or refused */
    {RS_E_INVAL, 2},	    /* bad option */
    {RS_E_TIMEOUT, 3},	    /* nobody answered */
    {RS_E_BUSY, 5},	    /* the receiver serves someone else */
    {RS_E_FULL, 4},	    /* remote log full */
    {RS_E_DIVERGED, 6},	    /* not a prefix, replicas that differ */
    {RS_E_DEGRADED, 7},	    /* committed on fewer replicas */
    {RS_E_IO, 2},	    /* unreadable input */
    {RS_E_NODEV, 3},	    /* no RDMA device */
    {RS_E_INTERRUPTED, 20}, /* SIGINT or SIGTERM */
    {RS_E_INPUT_LOST, 8},   /* -f: lines gone before they were read */
    {RS_E_INPUT_LEFT, 9},   /* -f: stopped with a backlog */
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))

static void the_table_has_every_code(void **state)
{
	(void)state;
	assert_int_equal(NROWS, -RS_E_LAST);
	for (int code = RS_E_NOMEM; code >= RS_E_LAST; code--) {
		unsigned found = 0;
		for (size_t i = 0; i < NROWS; i++)
			found += rows[i].code == code;
		assert_int_equal(found, 1);
	}
}

static void send_statuses(void **state)
{
	(void)state;
	assert_int_equal(exit_status_send(0), 0);
	for (size_t i = 0; i < NROWS; i++) {
		int got = exit_status_send(rows[i].code);
		if (got != rows[i].send)
			fail_msg("code %d: exit %d, want %d", rows[i].code, got,
				 rows[i].send);
	}
}

/* cmp's convention: whatever went wrong is trouble. */
static void verify_statuses(void **state)
{
	(void)state;
	assert_int_equal(exit_status_verify(0, true), 0);
	assert_int_equal(exit_status_verify(0, false), 1);
	for (size_t i = 0; i < NROWS; i++) {
		assert_int_equal(exit_status_verify(rows[i].code, true), 2);
		assert_int_equal(exit_status_verify(rows[i].code, false), 2);
	}
}

/* Not a code at all (a bug below main): trouble, never success. */
static void what_is_no_code_is_trouble(void **state)
{
	(void)state;
	assert_int_equal(exit_status_send(RS_E_LAST - 1), 2);
	assert_int_equal(exit_status_send(1), 2);
	assert_int_equal(exit_status_verify(1, true), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(the_table_has_every_code),
	    cmocka_unit_test(send_statuses),
	    cmocka_unit_test(verify_statuses),
	    cmocka_unit_test(what_is_no_code_is_trouble),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
