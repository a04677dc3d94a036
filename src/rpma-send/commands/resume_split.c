#include "commands/resume_split.h"

#include <string.h>

size_t resume_split_at(const uint8_t *tail, size_t tail_len,
		       const uint8_t *older, size_t older_len,
		       const uint8_t *newer, size_t newer_len)
{
	size_t q = tail_len - 1 < newer_len ? tail_len - 1 : newer_len;
	for (; q > 0 && tail_len > 1; q--) {
		size_t before = tail_len - q;
		if (before <= older_len && !memcmp(newer, tail + before, q) &&
		    !memcmp(older + older_len - before, tail, before))
			return q;
	}
	return 0;
}
