/* What a follower could not ship (rpma-send -f): each file, or stretch of
 * a file, that went before it was read (removed or compressed before it
 * could be opened, truncated in place with no copy, copytruncate's own
 * gap). Each is warned of where it happens; the ledger says them all
 * again at the end in one line, whatever -q, and makes the run's exit
 * status its own (rpma-send(1), EXIT STATUS 8). Pure. */
#ifndef SEND_FOLLOW_LOSSES_H
#define SEND_FOLLOW_LOSSES_H

#include <stddef.h>
#include <stdint.h>

/* Losses named one by one; past that, counted. */
#define FOLLOW_LOSSES_NAMED 8
#define FOLLOW_LOSS_WHOLE UINT64_MAX /* `to` of a file lost whole */

struct follow_loss {
	char name[256];
	uint64_t from, to; /* bytes [from, to) of the file */
};

struct follow_losses {
	unsigned n; /* every loss, named or not */
	struct follow_loss named[FOLLOW_LOSSES_NAMED];
};

/* Bytes [from, to) of file `name` (to FOLLOW_LOSS_WHOLE: all it held)
 * were not shipped. */
void follow_losses_add(struct follow_losses *l, const char *name, uint64_t from,
		       uint64_t to);

/* Every loss in one line of text (no newline), as rpma-send ends with,
 * `what` saying what became of them: "2 stretches of followed files were
 * not shipped: app.log.1 (the whole file), app.log bytes 100 to 250"
 * (what: "not shipped"). Returns its length (cut to fit len). */
size_t follow_losses_describe(const struct follow_losses *l, const char *what,
			      char *buf, size_t len);

#endif
