/* persist-shadow-restore [--keep-word] DIR: every pool with a shadow in
 * DIR put back as the persistence model says a power cut leaves it
 * (shadow_store.h). With --keep-word, each pool's write offset word stays
 * as the pool holds it: a one-sided writer made it persistent itself
 * through the RDMA device, which the model cannot see (the case the
 * receiver's floor exists for). Run by the test bed while no receiver has
 * the pools open. */
#include "shadow_store.h"

#include "proto/pool_layout.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int keep_word = argc == 3 && !strcmp(argv[1], "--keep-word");
	if (argc != 2 + keep_word) {
		fprintf(stderr,
			"usage: persist-shadow-restore [--keep-word] DIR\n");
		return 2;
	}
	const char *dir = argv[1 + keep_word];
	uint64_t from = keep_word ? RS_LOG_WRITE_OFFSET : 0;
	int n = shadow_restore(dir, from, keep_word ? from + 8 : 0);
	if (n == 0)
		fprintf(stderr, "persist-shadow-restore: no shadow in %s\n",
			dir);
	return n > 0 ? 0 : 1;
}
