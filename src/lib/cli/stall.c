#include "cli/stall.h"

static void add(struct rs_stall *s, uint64_t at_ns, uint64_t ns)
{
	s->total_ns += ns;
	if (s->nsteps == RS_STALL_HISTORY) {
		for (unsigned i = 1; i < s->nsteps; i++)
			s->steps[i - 1] = s->steps[i];
		s->nsteps--;
	}
	s->steps[s->nsteps++] =
	    (struct rs_stall_step){.at_ns = at_ns, .ns = ns};
}

void rs_stall_waits(struct rs_stall *s, uint64_t now_ns, uint64_t wait_ns)
{
	s->since_ns = now_ns;
	s->asked_ns = wait_ns;
}

void rs_stall_woke(struct rs_stall *s, uint64_t now_ns)
{
	uint64_t due = s->since_ns + s->asked_ns + RS_STALL_SLACK_NS;
	if (s->since_ns && now_ns > due)
		add(s, now_ns, now_ns - due);
	s->since_ns = 0;
}

uint64_t rs_stall_since(const struct rs_stall *s, uint64_t from_ns)
{
	uint64_t ns = 0;
	for (unsigned i = s->nsteps; i > 0 && s->steps[i - 1].at_ns > from_ns;
	     i--)
		ns += s->steps[i - 1].ns;
	return ns;
}
