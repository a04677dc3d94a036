/* What each type of value does (internal to the settings_value code): an
 * ops table per type, chosen by settings/value.c from the row's type, and
 * the naming every message of theirs starts with. */
#ifndef RECV_SETTINGS_VALUE_OPS_H
#define RECV_SETTINGS_VALUE_OPS_H

#include "settings/value.h"

struct settings_value_ops {
	/* settings_value_parse for this type. */
	int (*parse)(const struct settings_input *in, const char *text,
		     void *owner, struct rs_error *err);
	void (*set_default)(const struct cli_option *row, void *owner);
	bool (*equal)(const struct cli_option *row, const void *a,
		      const void *b);
	/* The default for --help, "" for none. */
	const char *(*show_default)(const struct cli_option *row, char *buf,
				    size_t len);
};

/* settings/number.c: counts, the port, sizes, durations */
extern const struct settings_value_ops settings_number_ops;
/* settings/text.c */
extern const struct settings_value_ops settings_bool_ops, settings_address_ops,
    settings_path_ops, settings_key_file_ops, settings_cidr_list_ops,
    settings_method_list_ops;

/* Sets err to RS_E_INVAL and "NAME 'TEXT'" then what (a key), or
 * "--FLAG: 'TEXT'" then what (a flag): what starts with its own " must
 * be" or ": why". */
int settings_value_bad(const struct settings_input *in, const char *text,
		       struct rs_error *err, const char *what, ...)
    __attribute__((format(printf, 4, 5)));

/* The same without the value: "NAME" or "--FLAG" then what. */
int settings_value_bad_name(const struct settings_input *in,
			    struct rs_error *err, const char *what, ...)
    __attribute__((format(printf, 3, 4)));

/* "" for none: a default not to show. */
const char *settings_value_no_default(const struct cli_option *row, char *buf,
				      size_t len);

#endif
