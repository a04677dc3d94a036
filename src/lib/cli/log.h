/* Diagnostics: one line per message on stderr, prefixed with the program's
 * name, filtered by a verbosity level set once by the CLI. When stderr is
 * the journal's stream (a systemd service), each line also starts with its
 * syslog priority, "<3>" to "<7>" as sd-daemon(3) describes, so that
 * `journalctl -p warning` finds errors and warnings; elsewhere the lines
 * carry no such prefix. Safe to call from several threads once
 * rs_log_init() has run: each line is one write(2). */
#ifndef RS_LOG_H
#define RS_LOG_H

#include <stdbool.h>

enum rs_log_level {
	RS_LOG_QUIET = 0, /* errors only */
	RS_LOG_NORMAL = 1,
	RS_LOG_VERBOSE = 2,
};

/* Call once, before any thread logs: it also decides, from
 * $JOURNAL_STREAM and stderr, whether lines carry priorities. */
void rs_log_init(const char *program, enum rs_log_level level);
enum rs_log_level rs_log_get_level(void);

/* An error the user must see; always printed (priority err). */
void rs_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Something wrong that does not stop the work, e.g. a setting that cannot
 * be applied or a peer refused; shown unless -q (priority warning). */
void rs_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A notice shown unless -q (priority info). */
void rs_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Detail shown with -v (priority debug). */
void rs_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A status line without its newline (rpma-send --progress) is open on
 * stderr, or not any more: while it is, the next message ends it first, so
 * that each message starts a line of its own (as pv and rsync do). */
void rs_log_line_open(bool open);

/* True when journal_stream, the value of $JOURNAL_STREAM ("DEV:INODE" in
 * decimal, set by systemd when it connects stdout or stderr to the
 * journal), names the file fd is open on. False for NULL, for a malformed
 * value, and when fd is something else: a service's stderr may have been
 * redirected, or the variable inherited by a child whose stderr is a
 * terminal. rs_log_init() asks this of stderr. */
bool rs_log_is_journal_stream(const char *journal_stream, int fd);

#endif
