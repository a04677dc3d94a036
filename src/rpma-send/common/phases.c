#include "common/phases.h"

#include "cli/phase_line.h"

void send_phases_print(FILE *out, const struct send_phases *p)
{
	const struct rs_session_times *t = p->session;
	struct rs_phase_line l;
	rs_phase_line_start(&l, "rpma-send: stats: phases_ms", p->main_ns);
	rs_phase_line_value(&l, "exec", p->exec_ns != 0,
			    (double)p->exec_ns / 1e6);
	rs_phase_line_step(&l, "start", t->begun_ns);
	rs_phase_line_step(&l, "resolve", t->routed_ns);
	rs_phase_line_step(&l, "prepare", t->prepared_ns);
	rs_phase_line_step(&l, "answer", t->answered_ns);
	rs_phase_line_step(&l, "grant", t->granted_ns);
	rs_phase_line_step(&l, "to_first_write", p->stats->first_post_ns);
	rs_phase_line_step(&l, "streaming", p->stats->last_commit_ns);
	rs_phase_line_step(&l, "teardown", p->now_ns);
	fprintf(out, "%s\n", l.text);
}
