/* FILE as the verify pipeline's source: whole reads from a descriptor (a
 * file or a pipe), retried when a signal interrupts one unless the user
 * asked to stop. */
#ifndef SEND_VERIFY_FILE_H
#define SEND_VERIFY_FILE_H

#include "verify/pipeline.h"

struct verify_file {
	int fd;
	const char *name; /* for messages */
};

/* The source reading f (which must outlive it). */
struct verify_source verify_file_source(struct verify_file *f);

#endif
