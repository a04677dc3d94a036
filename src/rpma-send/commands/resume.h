/* rpma-send --resume: continue a partly shipped FILE, like
 * `rsync --append-verify`. The remote log must be a prefix of FILE, which is
 * checked by hashes before anything is sent; then only the rest is
 * appended. A followed file goes on where the log's last bytes are found,
 * across rotation. */
#ifndef SEND_RESUME_H
#define SEND_RESUME_H

#include "commands/shipper.h"

/* Returns 0 or a negative enum rs_errc: RS_E_DIVERGED when the log is not
 * a prefix of FILE; reports like a normal send. */
int resume_run(const struct ship_config *cfg, const char *file,
	       struct ship_result *result);

/* --resume -f: goes on where the log's last bytes end in FILE or in a
 * copy rotated while the sender was down (commands/resume_follow.h), then
 * follows FILE (a rotated file read until quiet for rotate_wait_ms). Returns as
 * resume_run. */
int resume_follow_run(const struct ship_config *cfg, const char *file,
		      uint64_t rotate_wait_ms, struct ship_result *result);

#endif
