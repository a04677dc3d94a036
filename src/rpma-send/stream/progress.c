#include "stream/progress.h"

#include "cli/log.h"
#include "cli/size.h"

#include <stdio.h>
#include <unistd.h>

void send_progress_init(struct send_progress *p, bool enabled, bool forced)
{
	p->what = 0;
	p->enabled = enabled && (forced || isatty(STDERR_FILENO));
	p->drawn = false;
	p->last_ns = 0;
}

void send_progress_draw(struct send_progress *p, const struct send_stats *st,
			const char *detail)
{
	char bytes[32];
	double secs = send_stats_elapsed(st);
	double rate = secs > 0 ? (double)st->bytes / secs / 1e6 : 0;
	unsigned whole = (unsigned)secs;
	fprintf(stderr, "\rrpma-send: %s %s, %.1f MB/s, %u:%02u elapsed%s ",
		rs_size_format(st->bytes, bytes, sizeof(bytes)),
		p->what ? p->what : "committed", rate, whole / 60, whole % 60,
		detail);
	fflush(stderr);
	rs_log_line_open(true);
	p->drawn = true;
	p->last_ns = send_stats_now_ns();
}

bool send_progress_due(const struct send_progress *p, uint64_t now_ns)
{
	return p->enabled && (!p->drawn || now_ns - p->last_ns >= 1000000000u);
}

void send_progress_commit_line(uint64_t input)
{
	fprintf(stderr, "rpma-send: committed %llu input bytes\n",
		(unsigned long long)input);
	fflush(stderr);
}

void send_progress_finish(struct send_progress *p, const struct send_stats *st,
			  const char *detail)
{
	if (!p->enabled)
		return;
	send_progress_draw(p, st, detail);
	fputc('\n', stderr);
	rs_log_line_open(false);
}
