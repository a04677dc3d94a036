/* What a process costs, as /proc/PID/status says: resident and pinned
 * memory (what RDMA registrations pinned) and its threads. The receiver
 * reports its own in the metrics file and --info; the load tool
 * (tests/load) samples the receiver's with it. */
#ifndef RS_PROC_STATUS_H
#define RS_PROC_STATUS_H

#include <stdint.h>
#include <sys/types.h>

struct rs_proc_status {
	uint64_t resident_bytes; /* VmRSS */
	/* RssAnon: its own memory, without the file pages it maps (a pool
	 * file's pages are the pool's, resident in the page cache anyway) */
	uint64_t anon_bytes;
	uint64_t pinned_bytes; /* VmPin */
	unsigned threads;
};

/* Reads pid's (0: this process's). 0, or -1 when it cannot be read (the
 * process is gone). */
int rs_proc_status_read(pid_t pid, struct rs_proc_status *out);

/* How long this process has existed (since its exec's fork, as the
 * kernel's start time says: clock ticks, 10 ms here). 0, or -1. */
int rs_proc_age_ns(uint64_t *age_ns);

#endif
