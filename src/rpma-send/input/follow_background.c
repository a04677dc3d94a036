#include "input/follow_background.h"

#include "input/follow_internal.h"
#include "input/follow_track.h"

#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define BATCH_NS 10000000 /* events gathered before they are taken */

static void *watch(void *arg)
{
	static const struct timespec batch = {0, BATCH_NS};
	struct follower *f = arg;
	for (;;) {
		pthread_mutex_lock(&f->lock);
		int ms = (int)follower_look_ms(f);
		pthread_mutex_unlock(&f->lock);
		struct pollfd p[2] = {{.fd = f->bg.stop_fd, .events = POLLIN},
				      {.fd = f->watch.fd, .events = POLLIN}};
		int n = poll(p, f->watch.fd >= 0 ? 2 : 1, ms);
		if (n > 0 && p[0].revents)
			return NULL;
		/* A writer's lines come in bursts: their events are taken
		 * together (the kernel merges a file's writes not read yet). */
		if (n > 0)
			nanosleep(&batch, NULL);
		pthread_mutex_lock(&f->lock);
		follower_notice_locked(f);
		bool wake = n > 0 && f->reader_waits;
		f->reader_waits = f->reader_waits && !wake;
		pthread_mutex_unlock(&f->lock);
		if (wake)
			eventfd_write(f->bg.wake_fd, 1);
	}
}

bool follow_background_start(struct follower *f)
{
	struct follow_background *bg = &f->bg;
	bg->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	bg->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* Signals are the main thread's (SIGINT, SIGTERM stop the sender). */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	bg->running = bg->stop_fd >= 0 && bg->wake_fd >= 0 &&
		      pthread_create(&bg->thread, NULL, watch, f) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!bg->running) {
		if (bg->stop_fd >= 0)
			close(bg->stop_fd);
		if (bg->wake_fd >= 0)
			close(bg->wake_fd);
		bg->stop_fd = bg->wake_fd = -1;
	}
	return bg->running;
}

void follow_background_stop(struct follower *f)
{
	struct follow_background *bg = &f->bg;
	if (!bg->running)
		return;
	eventfd_write(bg->stop_fd, 1);
	pthread_join(bg->thread, NULL);
	close(bg->stop_fd);
	close(bg->wake_fd);
	bg->stop_fd = bg->wake_fd = -1;
	bg->running = false;
}

void follow_background_woken(struct follower *f)
{
	eventfd_t n;
	if (f->bg.running)
		eventfd_read(f->bg.wake_fd, &n);
}
