/* Many sender sessions in one thread, each to a log of its own, each
 * shipping a fixed-size line now and then: the sender's own code (a fleet
 * of one replica and its window per session, replicas/fleet.h) driven by
 * one poll loop, so a thousand sessions cost one thread. Not thread-safe:
 * a load of several threads has a fleet for each. Each line is
 * "load s=SESSION n=LINE " padded with '.' to its size, ending in '\n', so
 * a check can tell every line's place in its log. */
#ifndef LOAD_FLEET_H
#define LOAD_FLEET_H

#include "common/send_config.h"
#include "common/stats.h"

#include <stdbool.h>
#include <stdint.h>

struct load_fleet;

struct load_fleet_config {
	const char *host;   /* HOST[:PORT] */
	const char *prefix; /* session i ships to log PREFIX(first + i) */
	unsigned first;	    /* this fleet's share of a load begins here */
	unsigned sessions;
	uint32_t line_size;
	enum rs_method method;
	unsigned retries; /* --retry of each session */
};

/* NULL when out of memory or a bad argument (said on stderr). */
struct load_fleet *load_fleet_new(const struct load_fleet_config *cfg);
void load_fleet_delete(struct load_fleet *lf);

/* Connects session i (it starts idle). 0 or its rs_errc, reported. */
int load_fleet_connect(struct load_fleet *lf, unsigned i);
/* Sessions from..to-1 ship a line every interval_ms from now on, spread
 * over the interval; interval_ms 0: they stop. Commit latencies go into
 * stats from now on. */
void load_fleet_pace(struct load_fleet *lf, unsigned from, unsigned to,
		     unsigned interval_ms, struct send_stats *stats);
/* Serves every session (events, keepalives, lines due) for up to ms
 * milliseconds, sleeping when nothing is due. */
void load_fleet_serve(struct load_fleet *lf, unsigned ms);
/* Ends every stream once its lines are committed (up to timeout_ms).
 * Returns how many sessions ended badly. */
unsigned load_fleet_finish(struct load_fleet *lf, unsigned timeout_ms);

/* How busy the loop was: its longest turn between two waits, and how many
 * turns took longer than LOAD_BUSY_LONG_NS. A commit that completes in a
 * long turn is seen late, which its latency counts. */
#define LOAD_BUSY_LONG_NS 5000000ull
struct load_fleet_busy {
	uint64_t longest_ns;
	uint64_t long_turns, turns;
};
/* The figures since the last call, then starts them again. */
void load_fleet_take_busy(struct load_fleet *lf, struct load_fleet_busy *out);

/* Session i's log name, lines shipped and committed. */
const char *load_fleet_log(const struct load_fleet *lf, unsigned i);
uint64_t load_fleet_lines_sent(const struct load_fleet *lf, unsigned i);
uint64_t load_fleet_lines_committed(const struct load_fleet *lf, unsigned i);

#endif
