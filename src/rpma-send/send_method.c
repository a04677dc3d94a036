/* The table of persistence methods the sender can post, and the choice of
 * one at the first grant. */
#include "send_method.h"

#include "error.h"

static const struct send_method *const methods[RS_METHOD_COUNT] = {
    [RS_METHOD_APM] = &method_apm,
    [RS_METHOD_GPSPM] = &method_gpspm,
    [RS_METHOD_STAGED] = &method_staged,
};

const struct send_method *send_method_of(enum rs_method m)
{
	return (unsigned)m < RS_METHOD_COUNT ? methods[m] : 0;
}

int send_method_choose(uint8_t offered, enum rs_method requested,
		       const struct send_method **chosen, struct rs_error *err)
{
	enum rs_method m;
	int rc = rs_method_choose(offered, requested, &m, err);
	if (rc)
		return rc;
	*chosen = send_method_of(m);
	if (!*chosen)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "method %s cannot be sent",
				    rs_method_name(m));
	return 0;
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

const char *send_method_cap_shrunk(const struct send_method *m,
				   const struct rs_accept_info *info,
				   uint32_t batch_max)
{
	return send_method_batch_cap(m, info) < batch_max ? m->cap_shrunk : 0;
}

void send_method_write_batch(const struct method_ctx *m, struct send_chain *c,
			     const struct rs_mr_desc *dst, uint64_t dst_offset,
			     const struct window_batch *b)
{
	chain_write(c, dst, dst_offset, CHAIN_RING, window_ring_offset(m->w, b),
		    b->length, UINT64_MAX, RS_POST_MORE);
}
