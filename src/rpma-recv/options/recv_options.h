/* rpma-recv's options that are not settings, one row each (lib/cli's
 * struct cli_option, the row type of both programs; the settings' rows are
 * settings/table.c's): the logs named, the configuration file, and the
 * modes other than serving. Their owner is a struct recv_args. */
#ifndef RECV_OPTIONS_TABLE_H
#define RECV_OPTIONS_TABLE_H

#include "cli/option.h"

/* argp keys of the rows without a short flag from 0x100, below the
 * settings table's. */
extern const struct cli_option_table recv_options;

#endif
