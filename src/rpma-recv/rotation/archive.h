/* A log's archive: the committed bytes rotation moved out of PMem, as plain
 * files on ordinary storage in one directory, in order. Each file holds one
 * stretch of the log and is named for the log position of its first byte,
 * zero-padded so that name order is log order:
 *
 *   DIR/NAME-00000000000000000000.log    bytes 0 to 3145727
 *   DIR/NAME-00000000000003145728.log    and so on, without a gap
 *
 * so `cat DIR/NAME-*.log` followed by the pool's content is the log. A
 * stretch is written as a hidden `.NAME-....log.part`, then made durable
 * (fsync of the file, rename, fsync of the directory) before it counts, so
 * the PMem it came from is reused only once it is safe; a `.part` file left
 * by a crash is removed when the archive is opened. Pruning (keep at most
 * COUNT files, or SIZE bytes) removes the oldest files, never the newest.
 * No PMem and no RDMA here: it is tested on the host. */
#ifndef RECV_ARCHIVE_H
#define RECV_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rs_error;
struct archive;

/* What the archive holds. */
struct archive_usage {
	unsigned files;
	uint64_t start; /* log position of its first byte (0 when empty) */
	uint64_t end;	/* just after its last byte (0 when empty) */
};

/* Opens the archive of log `name` in dir: lists its files, checks they
 * follow each other without a gap, removes what a crash left half-written.
 * RS_E_IO (dir unusable) or RS_E_MALFORMED (a gap, a file that is not a
 * whole stretch) with the file named in err. */
int archive_open(const char *dir, const char *name, struct archive **out,
		 struct rs_error *err);
/* The same without removing anything: a look (rpma-recv --export). */
int archive_look(const char *dir, const char *name, struct archive **out,
		 struct rs_error *err);
void archive_close(struct archive **a);

struct archive_usage archive_usage(const struct archive *a);
const char *archive_dir(const struct archive *a);

/* A new stretch from log position pos (the archive's end, or anything when
 * it is empty): opens its .part file. */
int archive_stretch_begin(struct archive *a, uint64_t pos,
			  struct rs_error *err);
/* Appends to the open stretch. RS_E_FULL when the disk is full (err says
 * so), RS_E_IO otherwise. */
int archive_stretch_append(struct archive *a, const void *buf, size_t len,
			   struct rs_error *err);
/* Bytes in the open stretch, or 0 when none is open. */
uint64_t archive_stretch_length(const struct archive *a);
/* Whether a stretch is open. */
bool archive_stretch_active(const struct archive *a);
/* Makes what the open stretch holds so far durable (fdatasync), so that
 * sealing it later has little left to write. */
int archive_stretch_sync(struct archive *a, struct rs_error *err);
/* Makes the open stretch durable under its final name: from then on it is
 * part of the archive. RS_E_FULL or RS_E_IO as for append. */
int archive_stretch_seal(struct archive *a, struct rs_error *err);
/* The same in two steps, for the archiver's thread and the log's: the
 * file made durable under its name (the slow part: no stretch is open
 * afterwards), then taken into the listing (usage, locate, prune), which
 * cannot fail. Between the two the listing is as before. */
int archive_stretch_make_durable(struct archive *a, struct rs_error *err);
void archive_stretch_adopt(struct archive *a);
/* Removes the open stretch, if any. */
void archive_stretch_abandon(struct archive *a);

/* Removes the oldest files while more than keep files (0: no limit) or
 * more than max_bytes (0: no limit) are kept; never the newest. Returns
 * how many it removed, or a negative rs_errc. */
int archive_prune(struct archive *a, unsigned keep, uint64_t max_bytes,
		  struct rs_error *err);

/* Removes every file (a log replaced whole). */
int archive_remove_all(struct archive *a, struct rs_error *err);

/* The file holding log position pos and where pos is in it; RS_E_INVAL
 * when the archive does not hold pos. path must hold PATH_MAX bytes. */
int archive_locate(const struct archive *a, uint64_t pos, char *path,
		   uint64_t *file_offset, uint64_t *file_left,
		   struct rs_error *err);

#endif
