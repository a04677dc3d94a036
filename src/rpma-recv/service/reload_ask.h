/* A reload someone waits for: `rpma-recv --reload PID` (the unit's
 * ExecReload=) sends the receiver SIGHUP by sigqueue(3) with the value
 * RECV_RELOAD_ASK, and the receiver answers on RECV_RELOAD_ANSWER_SIGNAL,
 * by sigqueue too: TAKEN from its signal handler at once, then DONE or KEPT
 * when the reload has ended, READY=1 said (every log it added open). So
 * `systemctl reload` returns once the reload took effect, as systemd.service(5)
 * asks of an ExecReload= command, on systemd 252 too (Type=notify-reload, where
 * systemd waits by itself, is 253 and later). A plain SIGHUP (kill -HUP)
 * is answered by nobody. */
#ifndef RECV_RELOAD_ASK_H
#define RECV_RELOAD_ASK_H

#include <signal.h>
#include <sys/types.h>

/* The SIGHUP's value: "answer me" (its letters, "reld"). */
#define RECV_RELOAD_ASK 0x72656c64

/* The answers' signal: a realtime one, whose instances queue. (Of two
 * SIGUSR1s the second is dropped while the first is pending: a DONE sent
 * before the asker took TAKEN would be lost, and the asker wait on.) */
#define RECV_RELOAD_ANSWER_SIGNAL (SIGRTMIN)

/* The answers' values. */
enum recv_reload_answer {
	RECV_RELOAD_TAKEN = 1, /* the signal reached a receiver that answers */
	RECV_RELOAD_DONE = 2,  /* reread, every log it added open */
	RECV_RELOAD_KEPT = 3,  /* the file was refused: the old one stays */
};

/* From the SIGHUP handler (async-signal-safe): notes who asked, if the
 * signal was such a request, and answers TAKEN. */
void recv_reload_ask_note(const siginfo_t *info);

/* Who waits for the reload under way: its pid (0: nobody) and a pidfd of
 * it (-1 where the kernel or a sandbox gives none), so that a pid used
 * again after the asker gave up is never signalled. */
struct recv_reload_asker {
	pid_t pid;
	int pidfd;
};

#define RECV_RELOAD_NOBODY ((struct recv_reload_asker){0, -1})

/* The one waiting for the reload the loop starts now (nobody when it was
 * a plain SIGHUP). Clears the note. */
struct recv_reload_asker recv_reload_ask_take(void);

/* Answers *asker, if anybody, who is then nobody. */
void recv_reload_ask_answer(struct recv_reload_asker *asker,
			    enum recv_reload_answer answer);

/* Forgets *asker unanswered (the receiver stops: it sees it gone). */
void recv_reload_ask_drop(struct recv_reload_asker *asker);

#endif
