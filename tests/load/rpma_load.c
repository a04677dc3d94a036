/* rpma-load: a fleet of senders on one receiver, as wrk is for a web
 * server. One process holds N sender sessions, session i to log PREFIXi,
 * shared by T threads (load_crew.h: a reconnect holds up only its
 * thread's share, as the host of a sender of its own would), and runs:
 *   lone   session 0 alone ships a line every interval (the lone figure);
 *   connect the others connect;
 *   idle   every session connected, none shipping (the idle CPU);
 *   fleet  every session ships a line every interval.
 * It reports the commit latency of the lone and the fleet phases (each
 * line's, from when it was due: a line that waits for room in its window
 * counts its wait, so a stall is not left out of the figures), and,
 * given the receiver's pid (same host), its resident and pinned memory,
 * threads, descriptors and CPU in each phase. The last line,
 * "rpma-load: result ...", is key=value pairs for scripts. */
#include "load_crew.h"
#include "load_stall.h"
#include "load_watch.h"

#include "cli/log.h"
#include "error.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct load_args {
	struct load_fleet_config fleet;
	unsigned interval_ms, lone_s, idle_s, duration_s;
	unsigned threads;
	pid_t receiver;
	const char *report; /* per-session lines: NAME SENT COMMITTED */
};

/* A phase's figures: its receiver samples and commit latencies. */
struct load_phase {
	const char *name;
	struct load_sample first, last;
	struct load_peak peak;
	struct send_stats stats;
	bool watched;
	/* rpma-load itself and the machine: whether the box was saturated */
	struct load_sample self_first, self_last;
	struct load_machine box_first, box_last;
	bool self_watched;
	struct load_fleet_busy busy; /* rpma-load's own loop */
	struct load_stalls stalls;   /* how late the machine woke a thread */
};

static const char usage[] =
    "usage: rpma-load [options] HOST[:PORT] PREFIX\n"
    "Holds --sessions sender sessions, session i to log PREFIXi, each\n"
    "shipping a line every --interval; reports commit latency p50/p99\n"
    "(each line's, from when it was due) and\n"
    "the receiver's memory, threads and CPU (--receiver-pid).\n"
    "  -n, --sessions N        sessions (10)\n"
    "  -i, --interval MS       a line per session every MS ms (1000)\n"
    "  -s, --line-size BYTES   bytes per line, 32 to 65536 (100)\n"
    "  -l, --lone SECONDS      session 0 alone first (10)\n"
    "  -I, --idle SECONDS      all connected, idle (10)\n"
    "  -d, --duration SECONDS  all shipping (60)\n"
    "  -m, --method NAME       persistence method (the receiver's best)\n"
    "  -r, --retry N           reconnect attempts per loss (0)\n"
    "  -t, --threads N         threads sharing the sessions, a loop each (1)\n"
    "  -p, --receiver-pid PID  sample this process (the receiver)\n"
    "  -o, --report FILE       per session: LOG SENT COMMITTED\n"
    "  -v, --verbose           the sender's notices too\n";

static unsigned number(const char *opt, const char *arg, unsigned lo,
		       unsigned hi)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);
	if (*arg && !*end && v >= lo && v <= hi)
		return (unsigned)v;
	fprintf(stderr,
		"rpma-load: %s must be a number from %u to %u, not "
		"'%s'\n",
		opt, lo, hi, arg);
	exit(2);
}

static void parse_method(const char *arg, enum rs_method *m)
{
	struct rs_error err = {0};
	if (rs_method_parse(arg, m, &err)) {
		fprintf(stderr, "rpma-load: %s\n", err.msg);
		exit(2);
	}
}

/* One option of getopt_long's; exits on --help and on a bad one. */
static void take_option(int c, struct load_args *a, enum rs_log_level *level)
{
	switch (c) {
	case 'n':
		a->fleet.sessions = number("--sessions", optarg, 1, 100000);
		break;
	case 'i':
		a->interval_ms = number("--interval", optarg, 1, 3600000);
		break;
	case 's':
		a->fleet.line_size = number("--line-size", optarg, 32, 65536);
		break;
	case 'l':
		a->lone_s = number("--lone", optarg, 0, 86400);
		break;
	case 'I':
		a->idle_s = number("--idle", optarg, 0, 86400);
		break;
	case 'd':
		a->duration_s = number("--duration", optarg, 0, 86400);
		break;
	case 'm':
		parse_method(optarg, &a->fleet.method);
		break;
	case 'r':
		a->fleet.retries = number("--retry", optarg, 0, 1000);
		break;
	case 't':
		a->threads = number("--threads", optarg, 1, LOAD_CREW_MAX);
		break;
	case 'p':
		a->receiver =
		    (pid_t)number("--receiver-pid", optarg, 1, 1u << 30);
		break;
	case 'o':
		a->report = optarg;
		break;
	case 'v':
		*level = RS_LOG_NORMAL;
		break;
	case 'h':
		fputs(usage, stdout);
		exit(0);
	default:
		fputs(usage, stderr);
		exit(2);
	}
}

static void parse_args(int argc, char **argv, struct load_args *a)
{
	static const struct option opts[] = {
	    {"sessions", 1, 0, 'n'},  {"interval", 1, 0, 'i'},
	    {"line-size", 1, 0, 's'}, {"lone", 1, 0, 'l'},
	    {"idle", 1, 0, 'I'},      {"duration", 1, 0, 'd'},
	    {"method", 1, 0, 'm'},    {"retry", 1, 0, 'r'},
	    {"threads", 1, 0, 't'},   {"receiver-pid", 1, 0, 'p'},
	    {"report", 1, 0, 'o'},    {"verbose", 0, 0, 'v'},
	    {"help", 0, 0, 'h'},      {0, 0, 0, 0}};
	*a = (struct load_args){.interval_ms = 1000,
				.lone_s = 10,
				.idle_s = 10,
				.duration_s = 60,
				.threads = 1};
	a->fleet = (struct load_fleet_config){.sessions = 10, .line_size = 100};
	enum rs_log_level level = RS_LOG_QUIET;
	for (int c; (c = getopt_long(argc, argv, "n:i:s:l:I:d:m:r:t:p:o:vh",
				     opts, 0)) != -1;)
		take_option(c, a, &level);
	if (argc - optind != 2) {
		fputs(usage, stderr);
		exit(2);
	}
	a->fleet.host = argv[optind];
	a->fleet.prefix = argv[optind + 1];
	if (a->threads > a->fleet.sessions)
		a->threads = a->fleet.sessions;
	rs_log_init("rpma-load", level);
}

/* A thousand sessions hold thousands of descriptors and pin their rings. */
static void raise_limits(void)
{
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_MEMLOCK, &rl);
	}
}

/* rpma-load's own CPU and the machine's, at each of the phase's samples */
static void watch_self(struct load_phase *p, bool first)
{
	struct load_sample s;
	struct load_machine m;
	if (load_sample_read(getpid(), &s) || load_machine_read(&m))
		return;
	if (first || !p->self_watched) {
		p->self_first = s;
		p->box_first = m;
	}
	p->self_last = s;
	p->box_last = m;
	p->self_watched = true;
}

static void watch(const struct load_args *a, struct load_phase *p, bool first)
{
	struct load_sample s;
	watch_self(p, first);
	if (!a->receiver || load_sample_read(a->receiver, &s))
		return;
	if (first || !p->watched)
		p->first = s;
	p->last = s;
	p->watched = true;
	load_peak_add(&p->peak, &s);
}

/* Serves the fleet for seconds, sampling the receiver every second. */
static void run_phase(struct load_crew *c, const struct load_args *a,
		      struct load_phase *p, unsigned seconds,
		      struct load_stall_probe *probe)
{
	watch(a, p, true);
	load_crew_take_busy(c, &p->busy);
	load_stall_take(probe, &p->stalls);
	load_crew_start_serve(c, seconds * 1000);
	while (!load_crew_wait(c, 1000, 0))
		watch(a, p, false);
	watch(a, p, false);
	load_crew_take_busy(c, &p->busy);
	load_stall_take(probe, &p->stalls);
	load_crew_take_stats(c, &p->stats);
}

/* Sessions 1..n-1, each thread's share served between its connections so
 * that those connected keep their sessions alive. Returns how many
 * connected. */
static unsigned connect_rest(struct load_crew *c, const struct load_args *a,
			     struct load_phase *p)
{
	unsigned ok = 0;
	watch(a, p, true);
	load_crew_start_connect(c);
	while (!load_crew_wait(c, 1000, &ok))
		watch(a, p, false);
	watch(a, p, false);
	return ok;
}

/* Ends every stream (load_fleet_finish); how many ended badly. */
static unsigned finish(struct load_crew *c)
{
	unsigned bad = 0;
	load_crew_start_finish(c, 30000);
	while (!load_crew_wait(c, 1000, &bad))
		;
	return bad;
}

static double us(const struct send_stats *st, double q)
{
	return (double)send_stats_percentile(st, q) / 1000.0;
}

/* "; WHAT 12.3 ms AFTER, 4 of 567 UNITS over 5 ms" */
static void print_longest(const char *what, const char *after,
			  uint64_t longest_ns, uint64_t over, uint64_t all,
			  const char *units, uint64_t long_ns)
{
	printf("; %s %.1f ms%s, %llu of %llu %s over %llu ms", what,
	       (double)longest_ns / 1e6, after, (unsigned long long)over,
	       (unsigned long long)all, units,
	       (unsigned long long)(long_ns / 1000000ull));
}

static void print_phase(const struct load_phase *p)
{
	printf("%-8s", p->name);
	if (p->stats.latency_count)
		printf(" %llu commits, p50 %.0f us, p99 %.0f us;",
		       (unsigned long long)p->stats.latency_count,
		       us(&p->stats, 0.5), us(&p->stats, 0.99));
	const char *sep = " ";
	if (p->watched)
		printf("%sreceiver %.1f MiB resident (%.1f MiB its own), %.1f "
		       "MiB pinned, %u threads, %u descriptors, %.1f%% of a "
		       "core",
		       sep, (double)p->peak.rss_kib / 1024,
		       (double)p->peak.anon_kib / 1024,
		       (double)p->peak.pinned_kib / 1024, p->peak.threads,
		       p->peak.fds, load_cpu_percent(&p->first, &p->last));
	if (p->watched)
		sep = "; ";
	/* CPU is counted in ticks of 10 ms: a phase of no seconds (--idle 0)
	 * has no figure worth printing. */
	bool timed = p->self_last.at_ns - p->self_first.at_ns >= 1000000000ull;
	if (p->self_watched && timed)
		printf("%srpma-load %.1f%% of a core, the machine %.2f of "
		       "%ld cores busy",
		       sep, load_cpu_percent(&p->self_first, &p->self_last),
		       load_machine_cores_busy(&p->box_first, &p->box_last),
		       sysconf(_SC_NPROCESSORS_ONLN));
	if (p->busy.turns)
		print_longest("its loop's longest turn", "", p->busy.longest_ns,
			      p->busy.long_turns, p->busy.turns, "turns",
			      LOAD_BUSY_LONG_NS);
	if (p->stalls.wakes)
		print_longest("a sleeping thread woken up to", " late",
			      p->stalls.longest_ns, p->stalls.long_wakes,
			      p->stalls.wakes, "wakes", LOAD_STALL_LONG_NS);
	printf("\n");
}

enum { LONE, CONNECT, IDLE, FLEET, PHASES };

/* Lines sent and committed over every session; the report file. */
static void count_lines(const struct load_crew *c, const struct load_args *a,
			uint64_t *sent, uint64_t *committed)
{
	FILE *f = a->report ? fopen(a->report, "w") : 0;
	if (a->report && !f)
		perror(a->report);
	*sent = *committed = 0;
	for (unsigned i = 0; i < a->fleet.sessions; i++) {
		uint64_t s = load_crew_lines_sent(c, i);
		uint64_t n = load_crew_lines_committed(c, i);
		*sent += s;
		*committed += n;
		if (f)
			fprintf(f, "%s %llu %llu\n", load_crew_log(c, i),
				(unsigned long long)s, (unsigned long long)n);
	}
	if (f)
		fclose(f);
}

static void print_result(const struct load_args *a, const struct load_phase *ph,
			 unsigned connected, uint64_t sent, uint64_t committed,
			 unsigned bad)
{
	struct load_peak peak = {0};
	for (int i = 0; i < PHASES; i++) {
		const struct load_peak *p = &ph[i].peak;
		struct load_sample s = {.rss_kib = p->rss_kib,
					.anon_kib = p->anon_kib,
					.pinned_kib = p->pinned_kib,
					.threads = p->threads,
					.fds = p->fds};
		load_peak_add(&peak, &s);
	}
	printf("rpma-load: result sessions=%u connected=%u failed=%u "
	       "lines_sent=%llu lines_committed=%llu lone_p50_us=%.0f "
	       "lone_p99_us=%.0f fleet_p50_us=%.0f fleet_p99_us=%.0f "
	       "rss_kib=%llu anon_kib=%llu pinned_kib=%llu threads=%u "
	       "fds=%u idle_cpu_pct=%.1f fleet_cpu_pct=%.1f "
	       "fleet_loop_longest_us=%.0f fleet_wake_latest_us=%.0f\n",
	       a->fleet.sessions, connected, bad, (unsigned long long)sent,
	       (unsigned long long)committed, us(&ph[LONE].stats, 0.5),
	       us(&ph[LONE].stats, 0.99), us(&ph[FLEET].stats, 0.5),
	       us(&ph[FLEET].stats, 0.99), (unsigned long long)peak.rss_kib,
	       (unsigned long long)peak.anon_kib,
	       (unsigned long long)peak.pinned_kib, peak.threads, peak.fds,
	       load_cpu_percent(&ph[IDLE].first, &ph[IDLE].last),
	       load_cpu_percent(&ph[FLEET].first, &ph[FLEET].last),
	       (double)ph[FLEET].busy.longest_ns / 1000.0,
	       (double)ph[FLEET].stalls.longest_ns / 1000.0);
}

int main(int argc, char **argv)
{
	struct load_args a;
	parse_args(argc, argv, &a);
	raise_limits();
	struct load_crew *c = load_crew_new(&a.fleet, a.threads);
	if (!c) {
		fprintf(stderr, "rpma-load: out of memory\n");
		return 2;
	}
	struct load_stall_probe *probe = load_stall_start();
	struct load_phase ph[PHASES] = {{.name = "lone"},
					{.name = "connect"},
					{.name = "idle"},
					{.name = "fleet"}};
	unsigned connected = load_crew_connect_first(c) == 0;
	if (connected) {
		load_crew_pace(c, 0, 1, a.interval_ms, true);
		run_phase(c, &a, &ph[LONE], a.lone_s, probe);
		load_crew_pace(c, 0, 1, 0, false);
		uint64_t t0 = send_stats_now_ns();
		connected += connect_rest(c, &a, &ph[CONNECT]);
		printf("%u of %u sessions connected in %.1f s\n", connected,
		       a.fleet.sessions,
		       (double)(send_stats_now_ns() - t0) / 1e9);
		fflush(stdout); /* a script watching the output acts on it */
		run_phase(c, &a, &ph[IDLE], a.idle_s, probe);
		load_crew_pace(c, 0, a.fleet.sessions, a.interval_ms, true);
		run_phase(c, &a, &ph[FLEET], a.duration_s, probe);
	}
	unsigned bad = finish(c);
	load_crew_take_stats(c, &ph[FLEET].stats); /* the last lines' */
	uint64_t sent, committed;
	count_lines(c, &a, &sent, &committed);
	for (int i = 0; i < PHASES; i++)
		print_phase(&ph[i]);
	print_result(&a, ph, connected, sent, committed, bad);
	load_stall_stop(probe);
	load_crew_delete(c);
	bool ok = connected == a.fleet.sessions && !bad && sent == committed;
	return ok ? 0 : 1;
}
