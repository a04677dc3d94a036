#include "input/follow_losses.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void follow_losses_add(struct follow_losses *l, const char *name, uint64_t from,
		       uint64_t to)
{
	unsigned named =
	    l->n < FOLLOW_LOSSES_NAMED ? l->n : FOLLOW_LOSSES_NAMED;
	for (unsigned i = 0; i < named; i++)
		if (l->named[i].from == from && l->named[i].to == to &&
		    !strcmp(l->named[i].name, name))
			return; /* said again by a look tried again */
	if (l->n < FOLLOW_LOSSES_NAMED) {
		struct follow_loss *x = &l->named[l->n];
		snprintf(x->name, sizeof(x->name), "%s", name);
		x->from = from;
		x->to = to;
	}
	l->n++;
}

/* Appends to buf at *at, cut to fit len (keeps the terminating NUL). */
static void add_text(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	if (*at + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n < len - *at ? (size_t)n : len - *at - 1;
}

size_t follow_losses_describe(const struct follow_losses *l, const char *what,
			      char *buf, size_t len)
{
	size_t at = 0;
	if (!len)
		return 0;
	buf[0] = 0;
	add_text(buf, len, &at, "%u %s of followed files %s %s:", l->n,
		 l->n == 1 ? "stretch" : "stretches",
		 l->n == 1 ? "was" : "were", what);
	unsigned named =
	    l->n < FOLLOW_LOSSES_NAMED ? l->n : FOLLOW_LOSSES_NAMED;
	for (unsigned i = 0; i < named; i++) {
		const struct follow_loss *x = &l->named[i];
		const char *sep = i ? "," : "";
		if (x->to == FOLLOW_LOSS_WHOLE && x->from == 0)
			add_text(buf, len, &at, "%s %s (the whole file)", sep,
				 x->name);
		else if (x->to == FOLLOW_LOSS_WHOLE)
			add_text(buf, len, &at, "%s %s from byte %llu on", sep,
				 x->name, (unsigned long long)x->from);
		else
			add_text(buf, len, &at, "%s %s bytes %llu to %llu", sep,
				 x->name, (unsigned long long)x->from,
				 (unsigned long long)x->to);
	}
	if (l->n > named)
		add_text(buf, len, &at, ", and %u more (each said above)",
			 l->n - named);
	return at;
}
