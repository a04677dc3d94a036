#include "proto/pool_layout.h"

#include "error.h"

#include <stdio.h>

int rs_log_geometry_check(uint64_t start, uint64_t end, uint64_t write,
			  uint64_t map_size, struct rs_error *err)
{
	if (start < RS_LOG_HDR_END)
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "log data starts inside the pool header");
	if (start % 8 != 0 || end % 8 != 0)
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "log offsets are not 8-byte aligned");
	if (end <= start)
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "log end is not after its start");
	if (end > map_size)
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "log end lies beyond the pool");
	if (write < start || write > end)
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "write offset lies outside the log");
	return 0;
}

int rs_log_range_check(uint64_t offset, uint64_t length, uint64_t start,
		       uint64_t end, struct rs_error *err)
{
	if (offset < start)
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "range starts before the log data");
	if (offset > end || length > end - offset)
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "range ends beyond the log data");
	return 0;
}

void rs_pool_uuid_text(const uint8_t u[16], char out[RS_POOL_UUID_TEXT])
{
	snprintf(out, RS_POOL_UUID_TEXT,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x",
		 u[3], u[2], u[1], u[0], u[5], u[4], u[7], u[6], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}
