#include "pool_layout.h"

const char *rs_log_geometry_check(uint64_t start, uint64_t end, uint64_t write,
				  uint64_t map_size)
{
	if (start < RS_LOG_HDR_END)
		return "log data starts inside the pool header";
	if (start % 8 != 0 || end % 8 != 0)
		return "log offsets are not 8-byte aligned";
	if (end <= start)
		return "log end is not after its start";
	if (end > map_size)
		return "log end lies beyond the pool";
	if (write < start || write > end)
		return "write offset lies outside the log";
	return 0;
}

const char *rs_log_range_check(uint64_t offset, uint64_t length, uint64_t start,
			       uint64_t end)
{
	if (offset < start)
		return "range starts before the log data";
	if (offset > end || length > end - offset)
		return "range ends beyond the log data";
	return 0;
}
