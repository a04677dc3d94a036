#include "cli/proc_status.h"

#include <stdio.h>
#include <string.h>

int rs_proc_status_read(pid_t pid, struct rs_proc_status *out)
{
	char path[64], line[256];
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	memset(out, 0, sizeof(*out));
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	unsigned long long v;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %llu kB", &v) == 1)
			out->resident_bytes = v << 10;
		else if (sscanf(line, "RssAnon: %llu kB", &v) == 1)
			out->anon_bytes = v << 10;
		else if (sscanf(line, "VmPin: %llu kB", &v) == 1)
			out->pinned_bytes = v << 10;
		else if (sscanf(line, "Threads: %llu", &v) == 1)
			out->threads = (unsigned)v;
	}
	fclose(f);
	return 0;
}
