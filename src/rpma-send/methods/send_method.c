/* The table of persistence methods the sender can post, and the choice of
 * one at the first grant. */
#include "methods/send_method.h"

#include "error.h"

static const struct send_method *const methods[RS_METHOD_COUNT] = {
    [RS_METHOD_APM] = &method_apm,
    [RS_METHOD_GPSPM] = &method_gpspm,
    [RS_METHOD_STAGED] = &method_staged,
    [RS_METHOD_FLUSH] = &method_flush,
};

const struct send_method *send_method_of(enum rs_method m)
{
	return (unsigned)m < RS_METHOD_COUNT ? methods[m] : 0;
}

uint8_t send_methods_known(void)
{
	uint8_t bits = 0;
	for (unsigned m = 0; m < RS_METHOD_COUNT; m++)
		if (methods[m])
			bits |= (uint8_t)RS_METHOD_BIT(m);
	return bits;
}

int send_method_choose(uint8_t offered, enum rs_method requested,
		       const struct send_method **chosen, struct rs_error *err)
{
	/* No method both sides can use: the session the receiver granted
	 * cannot carry a stream, as when it refuses one (exit 5), not a bad
	 * option of ours. */
	enum rs_method m;
	struct rs_error why = {0};
	if (rs_method_choose(offered, requested, &m, &why))
		return rs_error_set(err, RS_E_REJECTED, 0, "%s", why.msg);
	*chosen = send_method_of(m);
	if (!*chosen)
		return rs_error_set(err, RS_E_REJECTED, 0,
				    "method %s cannot be sent",
				    rs_method_name(m));
	return 0;
}

int send_method_plan(uint8_t granted, const char *flush_why_not,
		     enum rs_method requested,
		     const struct send_method **chosen, struct rs_error *err)
{
	const uint8_t flush = RS_METHOD_BIT(RS_METHOD_FLUSH);
	if (!flush_why_not || !(granted & flush))
		return send_method_choose(granted, requested, chosen, err);
	uint8_t offered = granted & (uint8_t)~flush;
	char list[64];
	if (requested == RS_METHOD_FLUSH)
		return rs_error_set(err, RS_E_REJECTED, 0,
				    "method flush cannot be used from here: %s",
				    flush_why_not);
	if (requested == RS_METHOD_AUTO && !offered)
		return rs_error_set(err, RS_E_REJECTED, 0,
				    "the receiver offers %s, which cannot be "
				    "used from here: %s",
				    rs_method_list(granted, list, sizeof(list)),
				    flush_why_not);
	return send_method_choose(offered, requested, chosen, err);
}

bool send_method_offered(const struct send_method *m,
			 const struct rs_accept_info *info)
{
	return info->methods & RS_METHOD_BIT(m->id);
}

uint32_t send_method_batch_cap(const struct send_method *m,
			       const struct rs_accept_info *info)
{
	return m->batch_cap ? m->batch_cap(info) : UINT32_MAX;
}

int send_method_check_cap(const struct send_method *m,
			  const struct rs_accept_info *info, uint32_t batch_max,
			  struct rs_error *err)
{
	if (send_method_batch_cap(m, info) >= batch_max)
		return 0;
	return rs_error_set(err, RS_E_REJECTED, 0, "%s", m->cap_shrunk);
}

void send_method_write_batch(const struct method_ctx *m, struct send_chain *c,
			     const struct rs_mr_desc *dst, uint64_t dst_offset,
			     const struct window_batch *b)
{
	chain_write(c, dst, dst_offset, CHAIN_RING, window_ring_offset(m->w, b),
		    b->length, UINT64_MAX, RS_POST_MORE);
}
