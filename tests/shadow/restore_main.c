/* persist-shadow-restore DIR: every pool with a shadow in DIR put back as
 * the persistence model says a power cut leaves it (shadow_store.h). Run
 * by the test bed while no receiver has the pools open. */
#include "shadow_store.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: persist-shadow-restore DIR\n");
		return 2;
	}
	int n = shadow_restore(argv[1]);
	if (n == 0)
		fprintf(stderr, "persist-shadow-restore: no shadow in %s\n",
			argv[1]);
	return n > 0 ? 0 : 1;
}
