/* The fake device: its context's ops and the wrapped verbs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_verbs.h"

#include <errno.h>
#include <string.h>

static struct fake_verbs *fake_of(struct ibv_context *ctx)
{
	return (struct fake_verbs *)((char *)ctx -
				     offsetof(struct fake_verbs, ctx));
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	struct fake_verbs *f = fake_of(qp->context);
	if (f->post_fails) {
		*bad = wr;
		return f->post_fails;
	}
	f->doorbells++;
	for (; wr; wr = wr->next) {
		assert_true(f->nsent < FAKE_MAX);
		f->sent[f->nsent] = *wr;
		f->sent[f->nsent].next = 0;
		if (wr->num_sge)
			f->sent_sge[f->nsent] = wr->sg_list[0];
		f->nsent++;
	}
	return 0;
}

static int take(struct ibv_wc *queue, unsigned *n, int max, struct ibv_wc *wc)
{
	if (!*n || max < 1)
		return 0;
	*wc = queue[0];
	memmove(queue, queue + 1, --*n * sizeof(*queue));
	return 1;
}

static int fake_poll_cq(struct ibv_cq *cq, int max, struct ibv_wc *wc)
{
	struct fake_verbs *f = fake_of(cq->context);
	if (f->poll_fails)
		return f->poll_fails;
	if (cq == &f->send_cq)
		return take(f->send_wc, &f->nsend, max, wc);
	return take(f->cq_wc, &f->ncq, max, wc);
}

static struct ibv_mw *fake_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct fake_verbs *f = fake_of(pd->context);
	if (f->alloc_errno) {
		errno = f->alloc_errno;
		return 0;
	}
	f->mw_type = type;
	f->mws++;
	f->mw = (struct ibv_mw){
	    .context = &f->ctx, .pd = pd, .rkey = 0x1200, .type = type};
	return &f->mw;
}

static int fake_dealloc_mw(struct ibv_mw *mw)
{
	fake_of(mw->context)->mws--;
	return 0;
}

struct fake_verbs *fake_verbs_new(void)
{
	struct fake_verbs *f = test_calloc(1, sizeof(*f));
	f->ctx.ops.post_send = fake_post_send;
	f->ctx.ops.poll_cq = fake_poll_cq;
	f->ctx.ops.alloc_mw = fake_alloc_mw;
	f->ctx.ops.dealloc_mw = fake_dealloc_mw;
	f->pd.context = &f->ctx;
	f->qp.context = &f->ctx;
	f->cq.context = &f->ctx;
	f->send_cq.context = &f->ctx;
	f->id.qp = &f->qp;
	f->mr = (struct ibv_mr){.addr = (void *)0x10000, .lkey = 77};
	f->rs_mr.mr = &f->mr;
	f->conn.id = &f->id;
	f->conn.cq = &f->cq;
	f->peer.verbs = &f->ctx;
	f->peer.pd = &f->pd;
	f->attr.device_cap_flags = IBV_DEVICE_MEM_WINDOW_TYPE_2B;
	f->attr.vendor_id = 0x02c9; /* a vendor's, not rxe's */
	return f;
}

void fake_verbs_delete(struct fake_verbs *f)
{
	test_free(f);
}

/* ---- the verbs wrapped at link time (-Wl,--wrap=NAME) ---- */

int __wrap_ibv_query_device(struct ibv_context *ctx,
			    struct ibv_device_attr *attr);
int __wrap_ibv_query_device(struct ibv_context *ctx,
			    struct ibv_device_attr *attr)
{
	struct fake_verbs *f = fake_of(ctx);
	if (f->query_fails)
		return f->query_fails;
	*attr = f->attr;
	return 0;
}

static struct ibv_mr *fake_reg(struct ibv_pd *pd, void *addr, size_t len,
			       int access)
{
	struct fake_verbs *f = fake_of(pd->context);
	assert_true(f->nreg < FAKE_MAX);
	f->reg_flags[f->nreg] = access;
	struct ibv_mr *mr = &f->mrs[f->nreg++];
	if (f->nreg_fail) {
		errno = f->reg_errno[0];
		memmove(f->reg_errno, f->reg_errno + 1,
			--f->nreg_fail * sizeof(*f->reg_errno));
		return 0;
	}
	*mr = (struct ibv_mr){.context = pd->context,
			      .pd = pd,
			      .addr = addr,
			      .length = len,
			      .lkey = 0x100 + f->nreg,
			      .rkey = 0x200 + f->nreg};
	f->mrs_alive++;
	return mr;
}

struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
				 int access);
struct ibv_mr *__wrap_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
				 int access)
{
	return fake_reg(pd, addr, len, access);
}

struct ibv_mr *__wrap_ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
				       size_t len, uint64_t iova,
				       unsigned int access);
struct ibv_mr *__wrap_ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
				       size_t len, uint64_t iova,
				       unsigned int access)
{
	(void)iova;
	return fake_reg(pd, addr, len, (int)access);
}

int __wrap_ibv_dereg_mr(struct ibv_mr *mr);
int __wrap_ibv_dereg_mr(struct ibv_mr *mr)
{
	struct fake_verbs *f = fake_of(mr->context);
	assert_true(f->mrs_alive > 0);
	f->mrs_alive--;
	return 0;
}
