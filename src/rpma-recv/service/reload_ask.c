/* The receiver's half of a reload someone waits for (reload_ask.h). */
#include "service/reload_ask.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The asker of the SIGHUP not yet taken by the loop (0: none). Standard
 * signals do not queue: of two asks before the loop runs, the last is
 * noted, and both were answered TAKEN. */
static volatile sig_atomic_t asker;

void recv_reload_ask_note(const siginfo_t *info)
{
	if (info->si_code != SI_QUEUE ||
	    info->si_value.sival_int != RECV_RELOAD_ASK || info->si_pid <= 0)
		return;
	int saved = errno;
	asker = info->si_pid;
	sigqueue(info->si_pid, RECV_RELOAD_ANSWER_SIGNAL,
		 (union sigval){.sival_int = RECV_RELOAD_TAKEN});
	errno = saved;
}

struct recv_reload_asker recv_reload_ask_take(void)
{
	struct recv_reload_asker a = RECV_RELOAD_NOBODY;
	a.pid = asker;
	asker = 0;
	/* (the asker waits for the answer, so this is still its pid) */
	if (a.pid > 0)
		a.pidfd = (int)syscall(SYS_pidfd_open, a.pid, 0);
	return a;
}

void recv_reload_ask_answer(struct recv_reload_asker *a,
			    enum recv_reload_answer answer)
{
	union sigval value = {.sival_int = (int)answer};
	if (a->pidfd >= 0) {
		siginfo_t info;
		memset(&info, 0, sizeof(info));
		info.si_signo = RECV_RELOAD_ANSWER_SIGNAL;
		info.si_code = SI_QUEUE;
		info.si_pid = getpid();
		info.si_uid = getuid();
		info.si_value = value;
		syscall(SYS_pidfd_send_signal, a->pidfd,
			RECV_RELOAD_ANSWER_SIGNAL, &info, 0);
	} else if (a->pid > 0) {
		sigqueue(a->pid, RECV_RELOAD_ANSWER_SIGNAL, value);
	}
	recv_reload_ask_drop(a);
}

void recv_reload_ask_drop(struct recv_reload_asker *a)
{
	if (a->pidfd >= 0)
		close(a->pidfd);
	*a = RECV_RELOAD_NOBODY;
}
