#include "service/descriptors.h"

#include "cli/fd_limit.h"
#include "cli/log.h"
#include "metrics/clock.h"

#include <dirent.h>

/* Descriptors kept free for what the receiver opens besides senders: a
 * rotation's archive files, the metrics file, a reload's configuration. */
#define SPARE 32u

/* The descriptors open now, or 0 when /proc cannot say. */
static unsigned open_now(void)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 0;
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the listing's own */
}

void recv_descriptors_check_room(unsigned max_senders)
{
	unsigned long long limit = rs_fd_limit(), used = open_now();
	if (!limit || !used)
		return;
	unsigned long long need =
	    used + SPARE +
	    (unsigned long long)max_senders * RECV_DESCRIPTORS_PER_SENDER;
	if (need <= limit)
		return;
	unsigned long long room =
	    limit > used + SPARE
		? (limit - used - SPARE) / RECV_DESCRIPTORS_PER_SENDER
		: 0;
	rs_warn("the open-file limit (%llu) leaves room for %llu senders of "
		"max-senders %u (the logs hold %llu): raise it to %llu "
		"(LimitNOFILE= in the unit, or ulimit -n); past it senders "
		"are refused as full",
		limit, room, max_senders, used, need);
}

void recv_descriptors_say_starved(struct recv_descriptors_starved *st,
				  const char *peer)
{
	uint64_t now = recv_now_ns();
	if (st->said_ns && now - st->said_ns < 10000000000ull) {
		st->unsaid++;
		return;
	}
	rs_warn("refusing sender %s as full: the receiver has as many files "
		"open as its limit allows (%llu; %u more refused for it "
		"since last said): raise it (LimitNOFILE= in the unit, or "
		"ulimit -n)",
		peer, rs_fd_limit(), st->unsaid);
	st->said_ns = now;
	st->unsaid = 0;
}
