/* Every option of rpma-send, one row each (lib/cli's struct cli_option,
 * the row type of both programs): its long name and short flag, the type
 * and range of its argument, its default, the modes that take it, the
 * handler that sets it and its help. argp's options and --help
 * (options/parse.c, cli/option_argp.h), the range checks and the defaults
 * (cli/option_value.h) follow from here; an option is added by a row and,
 * when storing its value in a field is not all it does, its handler. */
#ifndef SEND_OPTIONS_TABLE_H
#define SEND_OPTIONS_TABLE_H

#include "cli/option.h"

/* The modes that take an option, a bit each (a row's modes). */
enum send_mode {
	SEND_MODE_SHIP = 1u << 0,   /* HOST [FILE]: a stream (and --resume) */
	SEND_MODE_VERIFY = 1u << 1, /* --verify FILE HOST */
	SEND_MODE_FETCH = 1u << 2,  /* --fetch HOST [FILE] */
	SEND_MODE_ALL = SEND_MODE_SHIP | SEND_MODE_VERIFY | SEND_MODE_FETCH,
};

/* The rows, their owner a struct send_args; argp keys of the rows without
 * a short flag from 0x100. */
extern const struct cli_option_table send_options;

#endif
