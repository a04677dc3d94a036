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
	sigqueue(info->si_pid, SIGUSR1,
		 (union sigval){.sival_int = RECV_RELOAD_TAKEN});
	errno = saved;
}

int recv_reload_ask_take(void)
{
	pid_t pid = asker;
	asker = 0;
	if (pid <= 0)
		return -1;
	/* (the asker waits for the answer, so this is still its pid) */
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

void recv_reload_ask_answer(int *pidfd, enum recv_reload_answer answer)
{
	if (*pidfd < 0)
		return;
	siginfo_t info;
	memset(&info, 0, sizeof(info));
	info.si_signo = SIGUSR1;
	info.si_code = SI_QUEUE;
	info.si_pid = getpid();
	info.si_uid = getuid();
	info.si_value.sival_int = (int)answer;
	syscall(SYS_pidfd_send_signal, *pidfd, SIGUSR1, &info, 0);
	close(*pidfd);
	*pidfd = -1;
}
