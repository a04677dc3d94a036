#include "verify/plan.h"

#include "error.h"

/* The range of the log to compare: the whole committed log, or the asked
 * range cut at the committed end. */
static void plan_range(const struct verify_config *cfg,
		       const struct verify_offer *o, struct verify_plan *p)
{
	if (cfg->whole_log) {
		p->log_offset = o->start;
		p->remote_len = o->committed_end - o->start;
		return;
	}
	p->log_offset = o->start + cfg->offset;
	p->remote_len = 0;
	if (p->log_offset < o->committed_end)
		p->remote_len = o->committed_end - p->log_offset;
	if (p->remote_len > cfg->length)
		p->remote_len = cfg->length;
}

int verify_plan_make(const struct verify_config *cfg,
		     const struct verify_offer *o, struct verify_plan *p,
		     struct rs_error *err)
{
	p->depth = cfg->depth < o->credits ? cfg->depth : o->credits;
	p->chunk = cfg->chunk;
	p->by_hash = cfg->method == VERIFY_HASH;
	p->can_read = o->pool_readable || o->ring_readable;
	if (!p->by_hash && !p->can_read)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "--verify=read: the receiver grants no "
				    "remote read; use --verify=hash");
	/* Whatever is read back (every chunk, or a first difference) fits
	 * the ring slot it passes through: every chunk without a readable
	 * pool, the archived ones with. */
	bool through_ring = !o->pool_readable || o->pool_start > o->start;
	if (o->ring_readable && through_ring && p->chunk > o->ring_slot)
		p->chunk = o->ring_slot;
	plan_range(cfg, o, p);
	return 0;
}
