/* Every option of rpma-send, one row each (tmux's options-table.c and
 * rpma-recv's settings/table.c are the model): its long name and short
 * flag, the type and range of its argument, its default, the modes that
 * take it, the handler that sets it and its help. argp's options and
 * --help (options/parse.c), the range checks and the defaults
 * (options/value.c) follow from here; an option is added by a row and,
 * when storing its value in a field is not all it does, its handler. */
#ifndef SEND_OPTIONS_TABLE_H
#define SEND_OPTIONS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct send_args;
struct rs_error;

/* The kinds of argument (options/value.c checks each). */
enum send_option_type {
	SEND_OPTION_FLAG,     /* none: the field is set to true */
	SEND_OPTION_COUNT,    /* digits only, min to max */
	SEND_OPTION_SIZE,     /* bytes: 64K, 1M, 4096; min to max */
	SEND_OPTION_DURATION, /* 500ms, 5s, 2m, a bare number milliseconds */
	SEND_OPTION_TEXT,     /* a word or a path, read by the handler */
};

/* The modes that take an option, a bit each. */
enum send_mode {
	SEND_MODE_SHIP = 1u << 0,   /* HOST [FILE]: a stream (and --resume) */
	SEND_MODE_VERIFY = 1u << 1, /* --verify FILE HOST */
	SEND_MODE_FETCH = 1u << 2,  /* --fetch HOST [FILE] */
	SEND_MODE_ALL = SEND_MODE_SHIP | SEND_MODE_VERIFY | SEND_MODE_FETCH,
};

/* Sets what the row's field alone does not: arg is the option's text (NULL
 * when it takes none or an optional one is not given), value the number a
 * COUNT, SIZE or DURATION row's check passed. 0, or RS_E_INVAL with the
 * one line argp prints. */
typedef int (*send_option_handler)(struct send_args *a, const char *arg,
				   uint64_t value, struct rs_error *err);

struct send_option_row {
	const char *name; /* the long option */
	char short_flag;  /* 0: none */
	const char *arg;  /* its argument in --help, NULL: it takes none */
	bool arg_optional;
	enum send_option_type type;
	uint64_t min, max; /* of a number */
	bool has_default;  /* def is set in the field before parsing */
	uint64_t def;
	/* --help says "(default DEF[NOTE])" after help, DEF as it is typed;
	 * else help says the default, if any, in its own words. */
	bool default_in_help;
	const char *default_note;
	unsigned modes;	     /* enum send_mode */
	size_t offset, size; /* the field in struct send_args; size 0: none */
	send_option_handler handler; /* NULL: the field is all */
	const char *help;
};

extern const struct send_option_row send_option_rows[];
extern const size_t send_option_nrows;

/* Rows there may be: the size of per-row arrays. */
#define SEND_OPTION_ROWS_MAX 32

/* argp's key of a row without a short flag: this plus its index. */
#define SEND_OPTION_KEY 0x100

/* The row's argp key; the row of a key, or NULL. */
int send_option_key(const struct send_option_row *row);
const struct send_option_row *send_option_by_key(int key);

/* The row of that long name, or NULL. */
const struct send_option_row *send_option_find(const char *name);

#endif
