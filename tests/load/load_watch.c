#include "load_watch.h"

#include "cli/proc_status.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* utime + stime: fields 14 and 15 of /proc/PID/stat, after the command's
 * closing parenthesis (a command may hold spaces). */
static int read_cpu(pid_t pid, struct load_sample *s)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	unsigned long long ut, st;
	if (!p || sscanf(p + 2,
			 "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%llu %llu",
			 &ut, &st) != 2)
		return -1;
	s->cpu_ticks = ut + st;
	return 0;
}

static unsigned count_fds(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	unsigned n = 0;
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int load_sample_read(pid_t pid, struct load_sample *s)
{
	memset(s, 0, sizeof(*s));
	struct rs_proc_status st;
	if (rs_proc_status_read(pid, &st) || read_cpu(pid, s))
		return -1;
	s->rss_kib = st.resident_bytes >> 10;
	s->anon_kib = st.anon_bytes >> 10;
	s->pinned_kib = st.pinned_bytes >> 10;
	s->threads = st.threads;
	s->fds = count_fds(pid);
	s->at_ns = now_ns();
	return 0;
}

void load_peak_add(struct load_peak *p, const struct load_sample *s)
{
	if (s->rss_kib > p->rss_kib)
		p->rss_kib = s->rss_kib;
	if (s->anon_kib > p->anon_kib)
		p->anon_kib = s->anon_kib;
	if (s->pinned_kib > p->pinned_kib)
		p->pinned_kib = s->pinned_kib;
	if (s->threads > p->threads)
		p->threads = s->threads;
	if (s->fds > p->fds)
		p->fds = s->fds;
}

double load_cpu_percent(const struct load_sample *from,
			const struct load_sample *to)
{
	double secs = (double)(to->at_ns - from->at_ns) / 1e9;
	double cpu = (double)(to->cpu_ticks - from->cpu_ticks) /
		     (double)sysconf(_SC_CLK_TCK);
	return secs > 0 ? 100.0 * cpu / secs : 0;
}

int load_machine_read(struct load_machine *m)
{
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	unsigned long long v[8] = {0};
	int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		       &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return -1;
	m->total = 0;
	for (int i = 0; i < 8; i++)
		m->total += v[i];
	m->busy = m->total - v[3] - v[4]; /* not idle, not waiting for I/O */
	return 0;
}

double load_machine_cores_busy(const struct load_machine *from,
			       const struct load_machine *to)
{
	uint64_t total = to->total - from->total;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (!total || cpus < 1)
		return 0;
	return (double)(to->busy - from->busy) / (double)total * (double)cpus;
}
