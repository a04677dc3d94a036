/* A reload someone waits for: `rpma-recv --reload PID` (the unit's
 * ExecReload=) sends the receiver SIGHUP by sigqueue(3) with the value
 * RECV_RELOAD_ASK, and the receiver answers on SIGUSR1, by sigqueue too:
 * TAKEN from its signal handler at once, then DONE or KEPT when the reload
 * has ended, READY=1 said (every log it added open). So `systemctl reload`
 * returns once the reload took effect, as systemd.service(5) asks of an
 * ExecReload= command, on systemd 252 too (Type=notify-reload, where
 * systemd waits by itself, is 253 and later). A plain SIGHUP (kill -HUP)
 * is answered by nobody. */
#ifndef RECV_RELOAD_ASK_H
#define RECV_RELOAD_ASK_H

#include <signal.h>
#include <stdbool.h>

/* The SIGHUP's value: "answer me" (its letters, "reld"). */
#define RECV_RELOAD_ASK 0x72656c64

/* The answers' values (on SIGUSR1). */
enum recv_reload_answer {
	RECV_RELOAD_TAKEN = 1, /* the signal reached a receiver that answers */
	RECV_RELOAD_DONE = 2,  /* reread, every log it added open */
	RECV_RELOAD_KEPT = 3,  /* the file was refused: the old one stays */
};

/* From the SIGHUP handler (async-signal-safe): notes who asked, if the
 * signal was such a request, and answers TAKEN. */
void recv_reload_ask_note(const siginfo_t *info);

/* The one waiting for the reload the loop starts now: a pidfd of the
 * asker (so a pid used again later is never signalled), or -1 when none
 * asked. Clears the note. */
int recv_reload_ask_take(void);

/* Answers the asker of *pidfd (if any) and closes it, *pidfd then -1. */
void recv_reload_ask_answer(int *pidfd, enum recv_reload_answer answer);

#endif
