#include "progress.h"

#include "cli/size.h"

#include <stdio.h>
#include <unistd.h>

void send_progress_init(struct send_progress *p, bool enabled, bool forced)
{
	p->enabled = enabled && (forced || isatty(STDERR_FILENO));
	p->drawn = false;
	p->last_ns = 0;
}

static void draw(struct send_progress *p, const struct send_stats *st)
{
	char bytes[32];
	double secs = send_stats_elapsed(st);
	double rate = secs > 0 ? (double)st->bytes / secs / 1e6 : 0;
	unsigned whole = (unsigned)secs;
	fprintf(stderr,
		"\rrpma-send: %s committed, %.1f MB/s, %u:%02u elapsed ",
		rs_size_format(st->bytes, bytes, sizeof(bytes)), rate,
		whole / 60, whole % 60);
	fflush(stderr);
	p->drawn = true;
}

void send_progress_update(struct send_progress *p, const struct send_stats *st)
{
	if (!p->enabled)
		return;
	uint64_t now = send_stats_now_ns();
	if (p->drawn && now - p->last_ns < 1000000000u)
		return;
	p->last_ns = now;
	draw(p, st);
}

void send_progress_finish(struct send_progress *p, const struct send_stats *st)
{
	if (!p->enabled)
		return;
	draw(p, st);
	fputc('\n', stderr);
}
