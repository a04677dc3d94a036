/* What a process costs, read from /proc: resident and pinned memory, its
 * threads, its open descriptors and the CPU time it used. The load tool
 * samples the receiver with it while the fleet runs (same host). */
#ifndef LOAD_WATCH_H
#define LOAD_WATCH_H

#include <stdint.h>
#include <sys/types.h>

struct load_sample {
	uint64_t rss_kib;    /* VmRSS */
	uint64_t anon_kib;   /* RssAnon: without the pool pages it maps */
	uint64_t pinned_kib; /* VmPin: what RDMA registrations pinned */
	unsigned threads;
	unsigned fds;
	uint64_t cpu_ticks; /* utime + stime, in clock ticks */
	uint64_t at_ns;	    /* CLOCK_MONOTONIC when read */
};

/* The largest of each figure over the samples given. */
struct load_peak {
	uint64_t rss_kib, anon_kib, pinned_kib;
	unsigned threads, fds;
};

/* The whole machine's CPU time (/proc/stat), in clock ticks: how busy
 * the box was, the load tool and the receiver included. */
struct load_machine {
	uint64_t busy, total;
};

/* Reads pid's figures now. 0, or -1 when the process is gone. */
int load_sample_read(pid_t pid, struct load_sample *s);
/* Keeps the largest figures of s in p. */
void load_peak_add(struct load_peak *p, const struct load_sample *s);
/* The CPU used between two samples, in percent of one core. */
double load_cpu_percent(const struct load_sample *from,
			const struct load_sample *to);

/* Reads the machine's CPU time now. 0, or -1. */
int load_machine_read(struct load_machine *m);
/* Cores busy on average between two readings (of all online ones). */
double load_machine_cores_busy(const struct load_machine *from,
			       const struct load_machine *to);

#endif
