#include "verify/verifier.h"

#include "cli/log.h"
#include "common/stats.h"
#include "common/stop.h"
#include "connect/connect.h"
#include "error.h"
#include "session/session.h"
#include "verify/file.h"
#include "verify/pipeline.h"
#include "verify/rdma.h"

#include <string.h>

int verify_method_parse(const char *name, enum verify_method *m)
{
	if (strcmp(name, "hash") == 0)
		*m = VERIFY_HASH;
	else if (strcmp(name, "read") == 0)
		*m = VERIFY_READ;
	else
		return RS_E_INVAL;
	return 0;
}

/* A verify session: its connection, the plan made from its grant and the
 * link the pipeline posts through. */
struct verify_session {
	struct rs_session *rs;
	struct verify_plan plan;
	struct verify_rdma *link;
};

/* Connects, plans from the grant and sets the link up. Returns 0 or a
 * negative enum rs_errc, reported. */
static int session_open(const struct verify_config *cfg,
			struct verify_session *s)
{
	struct send_peer peer = {.remote = &cfg->remote,
				 .timeout_ms = cfg->timeout_ms,
				 .key = cfg->auth_key};
	struct rs_connect_req req = {.flags = RS_CONNECT_VERIFY,
				     .method = RS_METHOD_AUTO};
	/* Sixteen reads per verified chunk. */
	int rc = send_connect(&peer, req, cfg->depth, 16, &s->rs);
	if (rc)
		return rc;
	struct verify_offer offer;
	verify_rdma_offer(s->rs, &offer);
	struct rs_error err = {0};
	rc = verify_plan_make(cfg, &offer, &s->plan, &err);
	if (!rc)
		rc = verify_rdma_new(&s->link, s->rs, &s->plan, &cfg->remote,
				     &err);
	if (rc)
		rs_err("%s", err.msg);
	return rc;
}

static void session_close(struct verify_session *s)
{
	verify_rdma_delete(&s->link);
	rs_session_delete(&s->rs);
}

/* Runs p to its end on the session's completions. Returns 0 or the
 * pipeline's code, reported; RS_E_INVAL for a stop the user asked for
 * (a comparison cut short has no answer: trouble, exit 2 as always). */
static int drive(struct verify_session *s, struct verify_pipeline *p)
{
	struct rs_error err = {0};
	int rc = verify_pipeline_start(p, &err);
	while (!rc && !verify_pipeline_finished(p)) {
		bool idle;
		rc = verify_rdma_pump(s->link, p, &idle, &err);
		if (!rc && idle && send_stop_requested)
			return RS_E_INVAL;
	}
	if (rc)
		rs_err("%s", err.msg);
	return rc;
}

static void print_range(void *ctx, uint64_t start, uint64_t end)
{
	(void)ctx;
	rs_verbose("differs in bytes [%llu, %llu)", (unsigned long long)start,
		   (unsigned long long)end);
}

static int compare(const struct verify_config *cfg, struct verify_session *s,
		   int fd, const char *name, struct verify_result *result)
{
	struct verify_file file = {.fd = fd, .name = name};
	struct verify_compare what = {.source = verify_file_source(&file),
				      .local_max = cfg->local_max,
				      .all_ranges = cfg->all_ranges,
				      .range = print_range};
	struct verify_link link = verify_rdma_link(s->link);
	struct verify_pipeline *p;
	struct rs_error err = {0};
	int rc = verify_pipeline_compare(&p, &s->plan, &link, &what, &err);
	if (rc) {
		rs_err("%s", err.msg);
		return rc;
	}
	rc = drive(s, p);
	verify_pipeline_result(p, result);
	verify_pipeline_delete(&p);
	return rc;
}

int verify_run(const struct verify_config *cfg, int fd, const char *name,
	       struct verify_result *result)
{
	memset(result, 0, sizeof(*result));
	uint64_t start_ns = send_stats_now_ns();
	struct verify_session s = {0};
	int rc = session_open(cfg, &s);
	if (!rc)
		rc = compare(cfg, &s, fd, name, result);
	result->seconds = (double)(send_stats_now_ns() - start_ns) / 1e9;
	session_close(&s);
	return rc;
}

/* Folds the receiver's hashes of every chunk, in order, into one. The
 * chunk size is the configured one whatever the receiver's ring allows,
 * so that two receivers holding the same bytes give the same digest. */
static int fold(const struct verify_config *cfg, struct verify_session *s,
		uint64_t *digest)
{
	struct verify_link link = verify_rdma_link(s->link);
	struct verify_pipeline *p;
	struct rs_error err = {0};
	int rc = verify_pipeline_digest(&p, &s->plan, &link, cfg->chunk, &err);
	if (rc) {
		rs_err("%s", err.msg);
		return rc;
	}
	rc = drive(s, p);
	if (!rc)
		*digest = verify_pipeline_digest_value(p);
	verify_pipeline_delete(&p);
	return rc;
}

int verify_digest(const struct verify_config *cfg, uint64_t *length,
		  uint64_t *digest)
{
	struct verify_session s = {0};
	int rc = session_open(cfg, &s);
	*length = s.plan.remote_len;
	if (!rc)
		rc = fold(cfg, &s, digest);
	session_close(&s);
	return rc;
}

int verify_log_extent(const struct verify_config *cfg, uint64_t *first,
		      uint64_t *end)
{
	struct verify_config whole = *cfg;
	whole.whole_log = true;
	struct verify_session s = {0};
	int rc = session_open(&whole, &s);
	*first = s.plan.log_offset;
	*end = s.plan.log_offset + s.plan.remote_len;
	session_close(&s);
	return rc;
}
