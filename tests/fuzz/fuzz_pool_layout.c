/* The checks that stand between a peer's (or a pool's) numbers and a write
 * into the pool. Properties: rs_log_range_check accepts exactly the ranges
 * lying inside [start, end) (computed without overflow), and
 * rs_log_geometry_check accepts exactly the geometries pool_layout.h
 * describes: data after the header, 8-byte aligned, non-empty, inside the
 * mapping, and a write offset inside the log. A refusal is RS_E_MALFORMED
 * with one line of text saying why. */
#include "fuzz_check.h"
#include "proto/pool_layout.h"

/* rc is right when the reference check says `ok`: 0, or RS_E_MALFORMED
 * with one line of text saying why. */
static void check_answer(int rc, const struct rs_error *err, bool ok)
{
	FUZZ_CHECK((rc == 0) == ok);
	if (!ok)
		FUZZ_CHECK(rc == RS_E_MALFORMED && fuzz_err_ok(rc, err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	uint64_t a = fuzz_take(&in, 8), b = fuzz_take(&in, 8),
		 c = fuzz_take(&in, 8), d = fuzz_take(&in, 8);
	struct rs_error err;

	/* a = offset, b = length, c = start, d = end */
	bool inside =
	    a >= c && (unsigned __int128)a + b <= (unsigned __int128)d;
	fuzz_err_init(&err);
	check_answer(rs_log_range_check(a, b, c, d, &err), &err, inside);
	FUZZ_CHECK((rs_log_range_check(a, b, c, d, NULL) == 0) == inside);

	/* a = start, b = end, c = write, d = map size */
	bool sound = a >= RS_LOG_HDR_END && a % 8 == 0 && b % 8 == 0 && b > a &&
		     b <= d && c >= a && c <= b;
	fuzz_err_init(&err);
	check_answer(rs_log_geometry_check(a, b, c, d, &err), &err, sound);
	FUZZ_CHECK((rs_log_geometry_check(a, b, c, d, NULL) == 0) == sound);
	return 0;
}
