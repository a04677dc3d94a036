/* What rotation's files share about one log's rotation (rotation/internal.h):
 * how messages name the log, the tests' stop knob, storing the record and
 * publishing its figures, the pool's committed bytes, dropping the open
 * stretch. rotation/rotation.c, rotation/archiver.c and rotation/switch.c call
 * these; this file calls none of theirs. */
#include "rotation/internal.h"

#include "cli/log.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The figures other threads read, after they changed. */
void rotation_publish(struct recv_rotation *r)
{
	struct archive_usage u = {0};
	if (r->archive)
		u = archive_usage(r->archive);
	atomic_store(&r->pub_base, r->state.base);
	atomic_store(&r->pub_archived, u.end - u.start);
	atomic_store(&r->pub_files, u.files);
}

const char *rotation_label(const struct recv_rotation *r)
{
	return r->name[0] ? r->name : r->t->path;
}

/* The tests' knob: stop here (SIGSTOP) when asked to, so that a test can
 * kill the receiver at exactly this step. While the file named by
 * RPMA_RECV_HOLD_FILE exists, only this thread waits instead (until it is
 * removed): the log's thread goes on answering, as it does while a slow
 * archive seals. */
void rotation_stop_at(const char *step)
{
	const char *want = getenv("RPMA_RECV_STOP_AT");
	if (!want || strcmp(want, step))
		return;
	const char *hold = getenv("RPMA_RECV_HOLD_FILE");
	if (hold && access(hold, F_OK) == 0) {
		rs_info("holding at %s while %s exists (RPMA_RECV_HOLD_FILE)",
			step, hold);
		struct timespec nap = {.tv_nsec = 10 * 1000 * 1000};
		while (access(hold, F_OK) == 0)
			nanosleep(&nap, 0);
		rs_info("going on from %s", step);
		return;
	}
	rs_info("stopping at %s (RPMA_RECV_STOP_AT)", step);
	raise(SIGSTOP);
}

void rotation_store(struct recv_rotation *r, uint64_t base)
{
	struct log_state next = {.seq = r->state.seq + 1,
				 .base = base,
				 .sw = r->state.sw,
				 .content = r->state.content};
	uint8_t slot[RECV_LOG_STATE_SLOT];
	unsigned i;
	log_state_encode(&next, r->t->uuid, slot, &i);
	recv_pmem_target_write_header(
	    r->t, RECV_LOG_STATE_OFFSET + (uint64_t)i * RECV_LOG_STATE_SLOT,
	    slot, sizeof(slot));
	r->state = next;
	/* The floor is of the record's epoch: armed again under the new one
	 * (pool/offset_rule.h). */
	recv_pmem_target_store_floor(r->t, recv_pmem_target_write_offset(r->t));
	rotation_publish(r);
}

uint64_t rotation_pool_used(const struct recv_rotation *r)
{
	return recv_pmem_target_write_offset(r->t) - r->t->start;
}

void rotation_abandon_stretch(struct recv_rotation *r)
{
	if (r->archive)
		archive_stretch_abandon(r->archive);
	atomic_store(&r->copied, 0);
	r->failed = false;
	r->stopped_copy = false;
}
