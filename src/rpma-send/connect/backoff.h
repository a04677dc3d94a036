/* How long to wait before trying a connection again (--retry): 0.1 s,
 * doubling up to 5 s. Every retry of a run waits this way: the stream's
 * first connection, a lost replica's reconnects, --resume's prefix check. */
#ifndef SEND_BACKOFF_H
#define SEND_BACKOFF_H

#define SEND_BACKOFF_FIRST_MS 100
#define SEND_BACKOFF_MAX_MS 5000

/* The wait after one of ms. */
static inline unsigned send_backoff_next(unsigned ms)
{
	return ms * 2 > SEND_BACKOFF_MAX_MS ? SEND_BACKOFF_MAX_MS : ms * 2;
}

#endif
