#include "info.h"

#include "cli/log.h"
#include "cli/size.h"
#include "pmem_target.h"

#include <stdio.h>

static const char *granularity_name(enum pmem2_granularity g)
{
	switch (g) {
	case PMEM2_GRANULARITY_BYTE:
		return "byte (PMem with eADR)";
	case PMEM2_GRANULARITY_CACHE_LINE:
		return "cache line (PMem)";
	default:
		return "page (page cache, persisted with msync)";
	}
}

int recv_info_print(const char *pool_path)
{
	struct rs_pmem_target t;
	struct rs_error err = {0};
	int rc = rs_pmem_target_open(&t, pool_path, 0, &err);
	if (rc) {
		rs_err("%s", err.msg);
		return rc;
	}
	uint64_t size = t.end - t.start;
	uint64_t used = rs_pmem_target_write_offset(&t) - t.start;
	char a[32], b[32], c[32];
	printf("pool: %s\n", pool_path);
	printf("uuid: ");
	for (int i = 0; i < 16; i++)
		printf("%02x", t.uuid[i]);
	printf("\nlog size: %llu bytes (%s)\n", (unsigned long long)size,
	       rs_size_format(size, a, sizeof(a)));
	printf("used: %llu bytes (%s, %.1f%%)\n", (unsigned long long)used,
	       rs_size_format(used, b, sizeof(b)),
	       size ? 100.0 * (double)used / (double)size : 0.0);
	printf("free: %llu bytes (%s)\n", (unsigned long long)(size - used),
	       rs_size_format(size - used, c, sizeof(c)));
	printf("store granularity: %s\n", granularity_name(t.granularity));
	rs_pmem_target_close(&t);
	return 0;
}
