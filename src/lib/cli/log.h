/* Diagnostics: one line per message on stderr, prefixed with the program's
 * name, filtered by a verbosity level set once by the CLI. */
#ifndef RS_LOG_H
#define RS_LOG_H

enum rs_log_level {
	RS_LOG_QUIET = 0, /* errors only */
	RS_LOG_NORMAL = 1,
	RS_LOG_VERBOSE = 2,
};

void rs_log_init(const char *program, enum rs_log_level level);
enum rs_log_level rs_log_get_level(void);

/* An error the user must see; always printed. */
void rs_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A notice shown unless -q. */
void rs_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Detail shown with -v. */
void rs_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
