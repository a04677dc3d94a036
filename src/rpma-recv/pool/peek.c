#include "pool/peek.h"

#include "pool/kind.h"
#include "pool/log_state.h"
#include "pool/offset_rule.h"
#include "proto/pool_layout.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libpmemlog's pool header: its compatible features' word */
#define POOL_HDR_COMPAT_FEATURES 12u
#define POOL_FEAT_CHECK_BAD_BLOCKS 0x1u
/* Where the header ends that peek_mapped reads: the pool header, the log
 * header, the log state slots and the offset floor record. */
#define POOL_HEAD_SIZE 8192u
_Static_assert(RECV_OFFSET_FLOOR_AT + RECV_OFFSET_FLOOR_SIZE <= POOL_HEAD_SIZE,
	       "a pool's head holds every field a peek reads");

static uint64_t le64_at(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The write offset as a receiver would serve it: one a writer left broken
 * reads as the floor the receiver would put back (pool/offset_rule.h). */
static uint64_t written_end(const uint8_t *base, size_t size,
			    const struct recv_pool_peek *p)
{
	uint64_t word = recv_offset_load(base + RS_LOG_WRITE_OFFSET), floor = 0;
	if (!recv_offset_floor_fits(p->start) || p->start > p->end ||
	    p->end > size)
		return word;
	bool has_floor = recv_offset_floor_decode(
	    base + RECV_OFFSET_FLOOR_AT, p->uuid,
	    recv_offset_floor_epoch(base, p->start, p->uuid), &floor);
	enum recv_offset_rule broke;
	return recv_offset_at_open(word, p->start, p->end, has_floor, floor,
				   &broke);
}

/* Reads what the mapping holds of a pool into out. */
static int peek_mapped(const char *path, const uint8_t *base, size_t size,
		       struct recv_pool_peek *out, struct rs_error *err)
{
	if (size < RS_LOG_HDR_END ||
	    memcmp(base, RS_POOL_SIGNATURE, sizeof(RS_POOL_SIGNATURE)))
		return rs_error_set(
		    err, RS_E_MALFORMED, 0,
		    "%s is not a usable pmemlog pool (no "
		    "PMEMLOG signature): give a pool, or create "
		    "one at a new path with --create SIZE or "
		    "`pmempool create log`",
		    path);
	memcpy(out->uuid, base + RS_POOL_UUID_OFFSET, sizeof(out->uuid));
	out->checks_bad_blocks = le64_at(base + POOL_HDR_COMPAT_FEATURES) &
				 POOL_FEAT_CHECK_BAD_BLOCKS;
	out->start = le64_at(base + RS_LOG_START_OFFSET);
	out->end = le64_at(base + RS_LOG_END_OFFSET);
	out->write = written_end(base, size, out);
	struct rs_error why = {0};
	if (rs_log_geometry_check(out->start, out->end, out->write, size, &why))
		return rs_error_set(err, RS_E_MALFORMED, 0,
				    "%s: unexpected pmemlog layout (%s)", path,
				    why.msg);
	struct log_state st = {0};
	if (out->start >= RECV_LOG_STATE_END)
		log_state_decode(base + RECV_LOG_STATE_OFFSET, out->uuid, &st);
	out->base = st.base;
	return 0;
}

static int cannot_read(const char *path, int e, struct rs_error *err)
{
	if (e == ENOENT || e == ENOTDIR)
		return rs_error_set(err, RS_E_IO, e,
				    "pool %s does not exist: give the path of "
				    "a pool file or a device-DAX",
				    path);
	if (e == EACCES || e == EPERM) {
		const struct passwd *pw = getpwuid(geteuid());
		return rs_error_set(err, RS_E_IO, e,
				    "cannot read %s: permission denied: a look "
				    "needs read access to it (user %s)",
				    path, pw ? pw->pw_name : "this user");
	}
	return rs_error_set(err, RS_E_IO, e, "cannot read %s: %s", path,
			    strerror(e));
}

static int map_read_only(int fd, struct pmem2_source **src,
			 struct pmem2_map **map)
{
	struct pmem2_config *cfg = 0;
	int ret = pmem2_source_from_fd(src, fd);
	if (!ret)
		ret = pmem2_config_new(&cfg);
	if (!ret)
		ret = pmem2_config_set_protection(cfg, PMEM2_PROT_READ);
	if (!ret)
		ret = pmem2_config_set_required_store_granularity(
		    cfg, PMEM2_GRANULARITY_PAGE);
	if (!ret)
		ret = pmem2_map_new(map, cfg, *src);
	pmem2_config_delete(&cfg);
	return ret;
}

/* What the mapping holds, and its log's committed bytes handed to
 * consume (when not NULL) while it is mapped. */
static int peek_with(const char *path, struct recv_pool_peek *out,
		     recv_pool_consume_fn consume, void *ctx,
		     struct rs_error *err)
{
	int kind = recv_pool_kind_check(path, err);
	if (kind)
		return kind;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cannot_read(path, errno, err);
	struct pmem2_source *src = 0;
	struct pmem2_map *map = 0;
	int rc = 0;
	if (map_read_only(fd, &src, &map))
		rc = rs_error_set(err, RS_E_IO, 0, "cannot map %s: %s", path,
				  pmem2_errormsg());
	else
		rc = peek_mapped(path, pmem2_map_get_address(map),
				 pmem2_map_get_size(map), out, err);
	if (!rc && consume) {
		const uint8_t *base = pmem2_map_get_address(map);
		rc = consume(ctx, base + out->start, out->write - out->start,
			     err);
	}
	if (map) {
		out->granularity = pmem2_map_get_store_granularity(map);
		pmem2_map_delete(&map);
	}
	pmem2_source_delete(&src);
	close(fd);
	return rc;
}

int recv_pool_peek(const char *path, struct recv_pool_peek *out,
		   struct rs_error *err)
{
	return peek_with(path, out, 0, 0, err);
}

/* A pool file's head read into a buffer, then looked at as a mapping
 * would be (its fields are all within the head). */
static int peek_file_head(const char *path, struct recv_pool_peek *out,
			  struct rs_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cannot_read(path, errno, err);
	struct stat st;
	uint8_t head[POOL_HEAD_SIZE];
	int rc = 0;
	if (fstat(fd, &st))
		rc = cannot_read(path, errno, err);
	else if (st.st_size < (off_t)POOL_HEAD_SIZE ||
		 pread(fd, head, POOL_HEAD_SIZE, 0) != (ssize_t)POOL_HEAD_SIZE)
		rc = rs_error_set(err, RS_E_MALFORMED, 0,
				  "%s is not a usable pmemlog pool (too "
				  "short to hold a header): give a pool, or "
				  "create one at a new path with --create SIZE",
				  path);
	else
		rc = peek_mapped(path, head, (size_t)st.st_size, out, err);
	close(fd);
	return rc;
}

int recv_pool_peek_head(const char *path, struct recv_pool_peek *out,
			struct rs_error *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		int kind = recv_pool_kind_check(path, err);
		return kind ? kind : peek_file_head(path, out, err);
	}
	return peek_with(path, out, 0, 0, err);
}

int recv_pool_peek_data(const char *path, struct recv_pool_peek *out,
			recv_pool_consume_fn consume, void *ctx,
			struct rs_error *err)
{
	return peek_with(path, out, consume, ctx, err);
}
