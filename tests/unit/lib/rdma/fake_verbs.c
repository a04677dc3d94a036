/* The fake device: its context's ops and the wrapped verbs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_verbs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* rdma_cm's calls carry no device: the fake of the test running. */
static struct fake_verbs *current;

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
		if (f->binds_complete && wr->opcode == IBV_WR_BIND_MW &&
		    (wr->send_flags & IBV_SEND_SIGNALED))
			f->send_wc[f->nsend++] =
			    (struct ibv_wc){.wr_id = wr->wr_id,
					    .status = IBV_WC_SUCCESS,
					    .opcode = IBV_WC_BIND_MW};
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

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	(void)bad;
	for (; wr; wr = wr->next)
		fake_of(qp->context)->recvs_posted++;
	return 0;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq, (void)solicited_only;
	return 0;
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
	f->ctx.ops.post_recv = fake_post_recv;
	f->ctx.ops.req_notify_cq = fake_req_notify_cq;
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
	f->id.verbs = &f->ctx;
	current = f;
	return f;
}

void fake_verbs_delete(struct fake_verbs *f)
{
	assert_int_equal(f->channels, 0); /* every channel destroyed */
	assert_int_equal(f->ids, 0);	  /* every id destroyed */
	assert_int_equal(f->qps, 0);	  /* every queue pair destroyed */
	assert_int_equal(f->cqs, 0);
	assert_int_equal(f->comp_channels, 0);
	current = 0;
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

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx);
struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *ctx)
{
	struct fake_verbs *f = fake_of(ctx);
	if (f->alloc_pd_errno) {
		errno = f->alloc_pd_errno;
		return 0;
	}
	assert_true(f->npds < FAKE_MAX);
	struct ibv_pd *pd = &f->pds[f->npds++];
	pd->context = ctx;
	f->pds_alive++;
	return pd;
}

int __wrap_ibv_dealloc_pd(struct ibv_pd *pd);
int __wrap_ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct fake_verbs *f = fake_of(pd->context);
	if (f->dealloc_pd_rc)
		return f->dealloc_pd_rc;
	f->pds_alive--;
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

/* ---- rdma_cm, wrapped the same way ---- */

/* Fails the call with e (returns true) when e is set. */
static bool fails(int e)
{
	if (!e)
		return false;
	errno = e;
	return true;
}

struct rdma_event_channel *__wrap_rdma_create_event_channel(void);
struct rdma_event_channel *__wrap_rdma_create_event_channel(void)
{
	struct fake_verbs *f = current;
	if (f->nchannel_fail) {
		errno = f->channel_errno[0];
		memmove(f->channel_errno, f->channel_errno + 1,
			--f->nchannel_fail * sizeof(*f->channel_errno));
		return 0;
	}
	struct rdma_event_channel *ch = calloc(1, sizeof(*ch));
	assert_non_null(ch);
	ch->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE | EFD_NONBLOCK);
	assert_true(ch->fd >= 0);
	if (!f->first_channel)
		f->first_channel = ch;
	f->channels++;
	return ch;
}

void __wrap_rdma_destroy_event_channel(struct rdma_event_channel *ch);
void __wrap_rdma_destroy_event_channel(struct rdma_event_channel *ch)
{
	struct fake_verbs *f = current;
	if (f->first_channel == ch)
		f->first_channel = 0;
	close(ch->fd);
	free(ch);
	f->channels--;
}

static struct rdma_cm_id *new_id(struct rdma_event_channel *ch, void *ctx)
{
	struct rdma_cm_id *id = calloc(1, sizeof(*id));
	assert_non_null(id);
	id->channel = ch;
	id->context = ctx;
	id->verbs = &current->ctx; /* the one device */
	current->ids++;
	return id;
}

int __wrap_rdma_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id,
			  void *ctx, enum rdma_port_space ps);
int __wrap_rdma_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id,
			  void *ctx, enum rdma_port_space ps)
{
	(void)ps;
	if (fails(current->create_id_errno))
		return -1;
	*id = new_id(ch, ctx);
	return 0;
}

int __wrap_rdma_destroy_id(struct rdma_cm_id *id);
int __wrap_rdma_destroy_id(struct rdma_cm_id *id)
{
	free(id);
	current->ids--;
	return 0;
}

int __wrap_rdma_getaddrinfo(const char *node, const char *service,
			    const struct rdma_addrinfo *hints,
			    struct rdma_addrinfo **res);
int __wrap_rdma_getaddrinfo(const char *node, const char *service,
			    const struct rdma_addrinfo *hints,
			    struct rdma_addrinfo **res)
{
	(void)node, (void)service, (void)hints;
	if (fails(current->getaddrinfo_errno))
		return -1;
	static struct sockaddr_in any = {.sin_family = AF_INET};
	*res = calloc(1, sizeof(**res));
	assert_non_null(*res);
	(*res)->ai_src_addr = (struct sockaddr *)&any;
	return 0;
}

void __wrap_rdma_freeaddrinfo(struct rdma_addrinfo *res);
void __wrap_rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	free(res);
}

int __wrap_rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr);
int __wrap_rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id, (void)addr;
	return fails(current->bind_errno) ? -1 : 0;
}

int __wrap_rdma_listen(struct rdma_cm_id *id, int backlog);
int __wrap_rdma_listen(struct rdma_cm_id *id, int backlog)
{
	(void)id, (void)backlog;
	return fails(current->listen_errno) ? -1 : 0;
}

void fake_cm_request(struct fake_verbs *f, const void *priv, uint8_t len)
{
	assert_true(f->nevents < FAKE_MAX);
	assert_non_null(f->first_channel);
	struct rdma_cm_event *ev = &f->events[f->nevents++];
	*ev = (struct rdma_cm_event){.event = RDMA_CM_EVENT_CONNECT_REQUEST,
				     .id = new_id(f->first_channel, 0)};
	ev->param.conn.private_data = priv;
	ev->param.conn.private_data_len = len;
	uint64_t one = 1;
	assert_int_equal(write(f->first_channel->fd, &one, sizeof(one)),
			 sizeof(one));
}

void fake_cm_event(struct fake_verbs *f, struct rdma_event_channel *ch,
		   enum rdma_cm_event_type type)
{
	assert_true(f->nevents < FAKE_MAX);
	f->events[f->nevents++] = (struct rdma_cm_event){.event = type};
	uint64_t one = 1;
	assert_int_equal(write(ch->fd, &one, sizeof(one)), sizeof(one));
}

int __wrap_rdma_get_cm_event(struct rdma_event_channel *ch,
			     struct rdma_cm_event **event);
int __wrap_rdma_get_cm_event(struct rdma_event_channel *ch,
			     struct rdma_cm_event **event)
{
	struct fake_verbs *f = current;
	uint64_t one;
	if (read(ch->fd, &one, sizeof(one)) != sizeof(one) || !f->nevents)
		return fails(EAGAIN) ? -1 : 0;
	struct rdma_cm_event *ev = malloc(sizeof(*ev));
	assert_non_null(ev);
	*ev = f->events[0];
	memmove(f->events, f->events + 1, --f->nevents * sizeof(*ev));
	*event = ev;
	return 0;
}

int __wrap_rdma_ack_cm_event(struct rdma_cm_event *event);
int __wrap_rdma_ack_cm_event(struct rdma_cm_event *event)
{
	free(event);
	current->acked++;
	return 0;
}

int __wrap_rdma_migrate_id(struct rdma_cm_id *id,
			   struct rdma_event_channel *ch);
int __wrap_rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *ch)
{
	if (fails(current->migrate_errno))
		return -1;
	id->channel = ch;
	current->migrated++;
	return 0;
}

int __wrap_rdma_reject(struct rdma_cm_id *id, const void *priv, uint8_t len);
int __wrap_rdma_reject(struct rdma_cm_id *id, const void *priv, uint8_t len)
{
	(void)id;
	if (len)
		memcpy(current->reject_priv, priv, len);
	current->reject_len = len;
	current->rejected++;
	return 0;
}

int __wrap_rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *attr,
			     int *mask);
int __wrap_rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *attr,
			     int *mask)
{
	(void)id, (void)attr, (void)mask;
	return fails(current->init_qp_attr_errno) ? -1 : 0;
}

/* ---- an accepted connection's queues ---- */

struct ibv_comp_channel *__wrap_ibv_create_comp_channel(struct ibv_context *c);
struct ibv_comp_channel *__wrap_ibv_create_comp_channel(struct ibv_context *c)
{
	struct ibv_comp_channel *ch = calloc(1, sizeof(*ch));
	assert_non_null(ch);
	ch->context = c;
	ch->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fake_of(c)->comp_channels++;
	return ch;
}

int __wrap_ibv_destroy_comp_channel(struct ibv_comp_channel *ch);
int __wrap_ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	fake_of(ch->context)->comp_channels--;
	close(ch->fd);
	free(ch);
	return 0;
}

struct ibv_cq *__wrap_ibv_create_cq(struct ibv_context *c, int cqe,
				    void *cq_context,
				    struct ibv_comp_channel *ch, int vector);
struct ibv_cq *__wrap_ibv_create_cq(struct ibv_context *c, int cqe,
				    void *cq_context,
				    struct ibv_comp_channel *ch, int vector)
{
	(void)vector;
	struct ibv_cq *cq = calloc(1, sizeof(*cq));
	assert_non_null(cq);
	*cq = (struct ibv_cq){
	    .context = c, .channel = ch, .cq_context = cq_context, .cqe = cqe};
	fake_of(c)->cqs++;
	return cq;
}

int __wrap_ibv_destroy_cq(struct ibv_cq *cq);
int __wrap_ibv_destroy_cq(struct ibv_cq *cq)
{
	fake_of(cq->context)->cqs--;
	free(cq);
	return 0;
}

int __wrap_rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			  struct ibv_qp_init_attr *attr);
int __wrap_rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			  struct ibv_qp_init_attr *attr)
{
	struct fake_verbs *f = fake_of(pd->context);
	if (f->withdraw_at_create_qp)
		f->init_qp_attr_errno = EINVAL;
	if (fails(f->init_qp_attr_errno) || fails(f->create_qp_errno))
		return -1;
	struct ibv_qp *qp = calloc(1, sizeof(*qp));
	assert_non_null(qp);
	*qp = (struct ibv_qp){.context = pd->context,
			      .pd = pd,
			      .send_cq = attr->send_cq,
			      .recv_cq = attr->recv_cq,
			      .qp_num = 100 + f->qps,
			      .qp_type = attr->qp_type};
	id->qp = qp;
	f->qps++;
	if (f->withdraw_after_create_qp)
		f->init_qp_attr_errno = EINVAL;
	return 0;
}

void __wrap_rdma_destroy_qp(struct rdma_cm_id *id);
void __wrap_rdma_destroy_qp(struct rdma_cm_id *id)
{
	fake_of(id->qp->context)->qps--;
	free(id->qp);
	id->qp = 0;
}

/* Soft-RoCE's port: Ethernet. */
int __wrap_ibv_query_port(struct ibv_context *c, uint8_t port,
			  struct _compat_ibv_port_attr *attr);
int __wrap_ibv_query_port(struct ibv_context *c, uint8_t port,
			  struct _compat_ibv_port_attr *attr)
{
	(void)c, (void)port;
	struct ibv_port_attr *a = (struct ibv_port_attr *)attr;
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->active_mtu = IBV_MTU_1024;
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	return 0;
}

int __wrap_ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int __wrap_ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	(void)qp, (void)attr, (void)mask;
	return 0;
}

int __wrap_rdma_set_option(struct rdma_cm_id *id, int level, int name,
			   void *val, size_t len);
int __wrap_rdma_set_option(struct rdma_cm_id *id, int level, int name,
			   void *val, size_t len)
{
	(void)id, (void)level, (void)name, (void)val, (void)len;
	return 0;
}

int __wrap_rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param);
int __wrap_rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	struct fake_verbs *f = current;
	(void)id;
	f->accept_len = param->private_data_len;
	if (param->private_data_len)
		memcpy(f->accept_priv, param->private_data,
		       param->private_data_len);
	f->accepted++;
	return 0;
}

int __wrap_rdma_disconnect(struct rdma_cm_id *id);
int __wrap_rdma_disconnect(struct rdma_cm_id *id)
{
	(void)id;
	current->disconnected++;
	return 0;
}
