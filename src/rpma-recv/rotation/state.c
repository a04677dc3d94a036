/* What rotation's files share about one log's rotation (rotation/internal.h):
 * how messages name the log, storing the record and
 * publishing its figures, the pool's committed bytes, dropping the open
 * stretch. rotation/rotation.c, rotation/archiver.c and rotation/switch.c call
 * these; this file calls none of theirs. */
#include "rotation/internal.h"

#include "cli/log.h"

#include <stdlib.h>
#include <string.h>
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
