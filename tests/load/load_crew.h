/* A load's sessions split over threads, each thread with a fleet of its
 * own (load_fleet.h) and a loop of its own: a reconnect blocks its loop
 * for the connect's round trips, and so holds up only that thread's share
 * of the sessions, as a host of its own would, not the whole load. Thread
 * k serves sessions [k * n / T, (k + 1) * n / T). A job runs on every
 * thread at once; the caller samples what it likes while it waits. */
#ifndef LOAD_CREW_H
#define LOAD_CREW_H

#include "load_fleet.h"

#define LOAD_CREW_MAX 64

struct load_crew;

/* NULL when out of memory (said on stderr). threads: 1 to LOAD_CREW_MAX,
 * at most the sessions. */
struct load_crew *load_crew_new(const struct load_fleet_config *cfg,
				unsigned threads);
void load_crew_delete(struct load_crew *c);

/* Session 0, alone, on the calling thread. 0 or its rs_errc. */
int load_crew_connect_first(struct load_crew *c);

/* The jobs, started on every thread; load_crew_wait says when done.
 * connect: each thread connects its share (session 0 excepted), serving
 *          those connected between connections; count: sessions connected.
 * serve:   load_fleet_serve for ms.
 * finish:  load_fleet_finish within ms; count: sessions that ended badly. */
void load_crew_start_connect(struct load_crew *c);
void load_crew_start_serve(struct load_crew *c, unsigned ms);
void load_crew_start_finish(struct load_crew *c, unsigned ms);
/* Waits up to ms for the job; true (and its count, summed over the
 * threads) once every thread is done with it. */
bool load_crew_wait(struct load_crew *c, unsigned ms, unsigned *count);

/* Between jobs only. Sessions from..to-1 ship a line every interval_ms
 * (load_fleet_pace); measured: their commit latencies are kept. */
void load_crew_pace(struct load_crew *c, unsigned from, unsigned to,
		    unsigned interval_ms, bool measured);
/* Adds the latencies kept since the last call into st. */
void load_crew_take_stats(struct load_crew *c, struct send_stats *st);
/* The loops' figures since the last call: the longest turn of any, the
 * turns of all. */
void load_crew_take_busy(struct load_crew *c, struct load_fleet_busy *out);

/* Session i of the whole load. */
const char *load_crew_log(const struct load_crew *c, unsigned i);
uint64_t load_crew_lines_sent(const struct load_crew *c, unsigned i);
uint64_t load_crew_lines_committed(const struct load_crew *c, unsigned i);

#endif
