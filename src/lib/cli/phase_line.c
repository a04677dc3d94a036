#include "cli/phase_line.h"

#include <stdio.h>

void rs_phase_line_start(struct rs_phase_line *l, const char *prefix,
			 uint64_t from_ns)
{
	int n = snprintf(l->text, sizeof(l->text), "%s", prefix);
	l->at = n < 0 ? 0 : (size_t)n;
	if (l->at >= sizeof(l->text))
		l->at = sizeof(l->text) - 1;
	l->from_ns = from_ns;
}

void rs_phase_line_value(struct rs_phase_line *l, const char *name, bool known,
			 double ms)
{
	size_t left = sizeof(l->text) - l->at;
	if (left <= 1)
		return;
	int n = known ? snprintf(l->text + l->at, left, " %s=%.1f", name, ms)
		      : snprintf(l->text + l->at, left, " %s=-", name);
	if (n > 0)
		l->at += (size_t)n < left ? (size_t)n : left - 1;
}

void rs_phase_line_step(struct rs_phase_line *l, const char *name,
			uint64_t end_ns)
{
	if (!end_ns || !l->from_ns || end_ns < l->from_ns) {
		rs_phase_line_value(l, name, false, 0);
		return;
	}
	rs_phase_line_value(l, name, true, (double)(end_ns - l->from_ns) / 1e6);
	l->from_ns = end_ns;
}
