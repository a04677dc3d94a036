/* rpma-send --resume: continue a partly shipped FILE, like
 * `rsync --append-verify`. The remote log must be a prefix of FILE, which is
 * checked by hashes before anything is sent; then only the rest is
 * appended. */
#ifndef SEND_RESUME_H
#define SEND_RESUME_H

#include "shipper.h"

/* Returns 0 or a negative enum rs_errc: RS_E_DIVERGED when the log is not
 * a prefix of FILE; reports like a normal send. */
int resume_run(const struct ship_config *cfg, const char *file,
	       struct ship_result *result);

#endif
