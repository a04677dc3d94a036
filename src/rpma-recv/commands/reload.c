/* rpma-recv --reload PID (reload.h). */
#include "commands/reload.h"

#include "cli/exit_code.h"
#include "cli/log.h"
#include "service/reload_ask.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long a receiver may take to say it got the signal: its loop lets the
 * signal in once a turn (a second at most) even while logs open. Past it,
 * the receiver is taken for one older than --reload. */
#define RELOAD_TAKEN_WAIT_S 10

/* The next answer of pid (on the signal of answers, blocked), waiting up
 * to wait_s seconds: an answer, 0 for none in time, or -1 when pid ended
 * meanwhile. */
static int next_answer(const sigset_t *answers, pid_t pid, int wait_s)
{
	for (int waited = 0; waited < wait_s; waited++) {
		siginfo_t info;
		struct timespec second = {1, 0};
		if (sigtimedwait(answers, &info, &second) ==
			RECV_RELOAD_ANSWER_SIGNAL &&
		    info.si_code == SI_QUEUE && info.si_pid == pid)
			return info.si_value.sival_int;
		if (kill(pid, 0) && errno == ESRCH)
			return -1;
	}
	return 0;
}

/* Root asking a receiver that runs as another user (rpma-ship) asks as
 * that user: a receiver may answer only a process of its own user. */
static int become_its_user(pid_t pid)
{
	char path[32];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (geteuid() != 0 || stat(path, &st) || st.st_uid == 0)
		return 0; /* (a pid that is gone: ask() says so) */
	if (!setgroups(0, 0) && !setgid(st.st_gid) && !setuid(st.st_uid))
		return 0;
	rs_err("--reload %d: cannot become its user (uid %u) to ask it: %s",
	       (int)pid, (unsigned)st.st_uid, strerror(errno));
	return RS_EXIT_USAGE;
}

static int ask(pid_t pid)
{
	union sigval ask = {.sival_int = RECV_RELOAD_ASK};
	if (!sigqueue(pid, SIGHUP, ask))
		return 0;
	rs_err("--reload %d: %s; give the pid of a running rpma-recv (as "
	       "systemd's $MAINPID)",
	       (int)pid, errno == ESRCH ? "no such process" : strerror(errno));
	return RS_EXIT_USAGE;
}

int recv_reload_command(pid_t pid)
{
	/* answers wait blocked until taken, none lost before the wait */
	sigset_t answers;
	sigemptyset(&answers);
	sigaddset(&answers, RECV_RELOAD_ANSWER_SIGNAL);
	sigprocmask(SIG_BLOCK, &answers, 0);
	int rc = become_its_user(pid);
	if (!rc)
		rc = ask(pid);
	if (rc)
		return rc;
	int answer = next_answer(&answers, pid, RELOAD_TAKEN_WAIT_S);
	if (!answer) {
		rs_warn("rpma-recv %d was sent SIGHUP but did not say it got "
			"it in %d s (an rpma-recv before --reload?): not "
			"waiting for its reload",
			(int)pid, RELOAD_TAKEN_WAIT_S);
		return RS_EXIT_OK;
	}
	/* the reload: as long as it takes (systemd bounds it: TimeoutSec) */
	while (answer == RECV_RELOAD_TAKEN || answer == 0)
		answer = next_answer(&answers, pid, 3600);
	if (answer == RECV_RELOAD_DONE)
		return RS_EXIT_OK;
	if (answer == RECV_RELOAD_KEPT) {
		rs_err("rpma-recv %d refused its configuration file and keeps "
		       "the one in force: its log says FILE:LINE",
		       (int)pid);
		return RS_EXIT_USAGE;
	}
	/* (-1: no other value is sent) */
	rs_err("rpma-recv %d ended before its reload was done", (int)pid);
	return RS_EXIT_CONNECT;
}
