#include "sender/session_times.h"

#include "cli/phase_line.h"

#include <stdio.h>

void recv_session_times_commit(struct recv_session_times *t, uint64_t now_ns)
{
	if (!t->first_commit_ns)
		t->first_commit_ns = now_ns;
	t->last_commit_ns = now_ns;
}

void recv_session_times_format(const struct recv_session_times *t, char *buf,
			       size_t len)
{
	if (!len)
		return;
	struct rs_phase_line l;
	rs_phase_line_start(&l, "phases_ms", t->asked_ns);
	rs_phase_line_step(&l, "queued", t->admitted_ns);
	rs_phase_line_step(&l, "setup", t->answered_ns);
	rs_phase_line_step(&l, "to_established", t->established_ns);
	rs_phase_line_step(&l, "to_first_commit", t->first_commit_ns);
	rs_phase_line_step(&l, "streaming", t->last_commit_ns);
	rs_phase_line_step(&l, "to_end", t->ended_ns);
	rs_phase_line_step(&l, "teardown", t->freed_ns);
	snprintf(buf, len, "%s", l.text);
}
