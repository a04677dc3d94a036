/* Each type's check, the field's store, the defaults and the help. */
#include "cli/option_value.h"

#include "cli/count.h"
#include "cli/duration.h"
#include "cli/size.h"
#include "error.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int cli_option_check_count(const char *opt, const char *arg, uint64_t min,
			   uint64_t max, uint64_t *v, struct rs_error *err)
{
	/* Digits only, as a configuration file's count: strtoull would
	 * take ' 5', '+5' and '-0' too. */
	if (rs_count_parse(arg, min, max, v))
		return 0;
	return rs_error_set(
	    err, RS_E_INVAL, 0, "%s: '%s' must be a number from %llu to %llu",
	    opt, arg, (unsigned long long)min, (unsigned long long)max);
}

static int check_size(const char *opt, const char *arg, uint64_t min,
		      uint64_t max, uint64_t *v, struct rs_error *err)
{
	if (!rs_size_parse(arg, v) && *v >= min && *v <= max)
		return 0;
	char lo[32], hi[32];
	rs_size_show(min, lo, sizeof(lo));
	rs_size_show(max, hi, sizeof(hi));
	return rs_error_set(err, RS_E_INVAL, 0,
			    "%s: '%s' must be a size from %s to %s (such as "
			    "64K or 1M)",
			    opt, arg, lo, hi);
}

/* A duration as every duration of both programs is written (500ms, 5s,
 * 2m); a bare number is milliseconds on the command line, as it always
 * was for rpma-send's. */
static int check_duration(const char *opt, const char *arg, uint64_t min,
			  uint64_t max, uint64_t *v, struct rs_error *err)
{
	if (!rs_duration_parse_bare(arg, 1, v) && *v >= min && *v <= max)
		return 0;
	char lo[32], hi[32];
	rs_duration_show(min, lo, sizeof(lo));
	rs_duration_show(max, hi, sizeof(hi));
	return rs_error_set(err, RS_E_INVAL, 0,
			    "%s: '%s' must be a duration from %s to %s (such "
			    "as 500ms, 5s or 2m; a bare number is "
			    "milliseconds)",
			    opt, arg, lo, hi);
}

static int check(const struct cli_option *row, const char *arg, uint64_t *v,
		 struct rs_error *err)
{
	char opt[48];
	snprintf(opt, sizeof(opt), "--%s", row->name);
	switch (row->type) {
	case CLI_OPTION_COUNT:
		return cli_option_check_count(opt, arg, row->min, row->max, v,
					      err);
	case CLI_OPTION_SIZE:
		return check_size(opt, arg, row->min, row->max, v, err);
	case CLI_OPTION_DURATION:
		return check_duration(opt, arg, row->min, row->max, v, err);
	case CLI_OPTION_FLAG:
		*v = 1;
		return 0;
	case CLI_OPTION_CONST:
		*v = row->def;
		return 0;
	default: /* TEXT: the handler reads it */
		return 0;
	}
}

/* A number or a flag into a field of its size (int and unsigned alike),
 * a text's pointer into a const char * field. */
static void store(const struct cli_option *row, void *owner, const char *arg,
		  uint64_t v)
{
	char *field = (char *)owner + row->offset;
	if (row->type == CLI_OPTION_TEXT)
		memcpy(field, &arg, sizeof(arg));
	else if (row->size == sizeof(bool))
		*(bool *)field = v != 0;
	else if (row->size == sizeof(uint16_t))
		*(uint16_t *)field = (uint16_t)v;
	else if (row->size == sizeof(uint32_t))
		*(uint32_t *)field = (uint32_t)v;
	else
		*(uint64_t *)field = v;
}

void cli_option_defaults(const struct cli_option_table *t, void *owner)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cli_option *row = &t->rows[i];
		if (row->has_default && row->size)
			store(row, owner, 0, row->def);
	}
}

int cli_option_parse(const struct cli_option *row, void *owner, const char *arg,
		     struct rs_error *err)
{
	uint64_t v = 0;
	int rc = check(row, arg, &v, err);
	if (rc)
		return rc;
	if (row->size)
		store(row, owner, arg, v);
	return row->handler ? row->handler(owner, arg, v, err) : 0;
}
