#include "cli/proc_status.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

int rs_proc_age_ns(uint64_t *age_ns)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* field 22, starttime, in clock ticks since boot; the name (field 2)
	 * may hold spaces, so count from its closing parenthesis (field 3 on)
	 */
	char *p = strrchr(buf, ')');
	unsigned long long start = 0;
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	long hz = sysconf(_SC_CLK_TCK);
	struct timespec now;
	if (!p || sscanf(p, " %llu", &start) != 1 || hz <= 0 ||
	    clock_gettime(CLOCK_BOOTTIME, &now))
		return -1;
	uint64_t boot_ns =
	    (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	uint64_t start_ns = start * (1000000000u / (uint64_t)hz);
	*age_ns = boot_ns > start_ns ? boot_ns - start_ns : 0;
	return 0;
}
