/* The settings whose value is a number: counts, the port, sizes,
 * percentages and durations. One check for all of them, against the row's
 * range, and one message: "NAME 'TEXT' must be RANGE[ (NOTE)][, like EXAMPLE][;
 * 'TEXT' is not a KIND]". In the file RANGE says the kind ("a size from 4K to
 * 1G"); a flag's argument name says it already ("4K to 1G"). */
#include "settings/value_ops.h"

#include "cli/count.h"
#include "cli/duration.h"
#include "cli/size.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What sets the numbers of one type apart. */
struct number_kind {
	const char *word;   /* "size": what a value must be */
	bool word_in_range; /* "a size from 4K to 1G" (else "1 s to 1 hour") */
	bool (*read)(const char *text, uint64_t *v); /* any value of the kind */
	void (*show)(uint64_t v, char *buf, size_t len);
	void (*store)(const struct cli_option *row, void *field, uint64_t v);
	uint64_t (*load)(const struct cli_option *row, const void *field);
};

/* ---- reading and showing each kind ---- */

static bool count_read(const char *text, uint64_t *v)
{
	return rs_count_parse(text, 0, UINT64_MAX, v);
}

static void count_show(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
}

static bool size_read(const char *text, uint64_t *v)
{
	return rs_size_parse(text, v) == 0;
}

static bool duration_read(const char *text, uint64_t *v)
{
	return rs_duration_parse(text, v) == 0;
}

/* 75 or 75% */
static bool percent_read(const char *text, uint64_t *v)
{
	size_t n = strlen(text);
	char digits[24];
	if (n && text[n - 1] == '%')
		n--;
	if (!n || n >= sizeof(digits))
		return false;
	memcpy(digits, text, n);
	digits[n] = '\0';
	return count_read(digits, v);
}

static void percent_show(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%llu%%", (unsigned long long)v);
}

/* ---- where a number is kept ---- */

/* An unsigned field of the row's size (the table keeps every range
 * within its field: settings/test_table.c checks). */
static void field_store(const struct cli_option *row, void *field, uint64_t v)
{
	switch (row->size) {
	case 1:
		*(uint8_t *)field = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)field = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)field = (uint32_t)v;
		break;
	default:
		*(uint64_t *)field = v;
	}
}

static uint64_t field_load(const struct cli_option *row, const void *field)
{
	switch (row->size) {
	case 1:
		return *(const uint8_t *)field;
	case 2:
		return *(const uint16_t *)field;
	case 4:
		return *(const uint32_t *)field;
	default:
		return *(const uint64_t *)field;
	}
}

/* The port is text in struct rs_endpoint, as the listener takes it. */
static void port_store(const struct cli_option *row, void *field, uint64_t v)
{
	snprintf(field, row->size, "%llu", (unsigned long long)v);
}

static uint64_t port_load(const struct cli_option *row, const void *field)
{
	(void)row;
	return strtoull(field, 0, 10);
}

static const struct number_kind count = {.word = "number",
					 .word_in_range = true,
					 .read = count_read,
					 .show = count_show,
					 .store = field_store,
					 .load = field_load};
static const struct number_kind port = {.word = "number",
					.word_in_range = true,
					.read = count_read,
					.show = count_show,
					.store = port_store,
					.load = port_load};
static const struct number_kind size = {.word = "size",
					.word_in_range = true,
					.read = size_read,
					.show = rs_size_show,
					.store = field_store,
					.load = field_load};
static const struct number_kind percent = {.word = "percentage",
					   .word_in_range = true,
					   .read = percent_read,
					   .show = percent_show,
					   .store = field_store,
					   .load = field_load};
static const struct number_kind duration = {.word = "duration",
					    .read = duration_read,
					    .show = rs_duration_show,
					    .store = field_store,
					    .load = field_load};

/* ---- the check and its message ---- */

/* "a number from 1 to 64", "1 to 64", "a size of at least 2M", with the
 * row's note when its min is the one in force. */
static void range_say(const struct settings_input *in,
		      const struct number_kind *k, char *buf, size_t len)
{
	const struct cli_option *row = in->row;
	uint64_t min = settings_row_min(row, in->from);
	bool unbounded = row->max == UINT64_MAX;
	char kind[32] = "", lo[32], hi[32];
	if (in->from != SETTINGS_FROM_FLAG && k->word_in_range)
		snprintf(kind, sizeof(kind), "a %s %s ", k->word,
			 unbounded ? "of" : "from");
	k->show(min, lo, sizeof(lo));
	k->show(row->max, hi, sizeof(hi));
	int n = unbounded ? snprintf(buf, len, "%sat least %s", kind, lo)
			  : snprintf(buf, len, "%s%s to %s", kind, lo, hi);
	if (row->note && min == row->min && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " (%s)", row->note);
}

static const struct number_kind *kind_of(const struct cli_option *row)
{
	static const struct number_kind *const kinds[] = {
	    [CLI_OPTION_COUNT] = &count,     [CLI_OPTION_PORT] = &port,
	    [CLI_OPTION_SIZE] = &size,	     [CLI_OPTION_DURATION] = &duration,
	    [CLI_OPTION_PERCENT] = &percent,
	};
	return kinds[row->type];
}

static int number_parse(const struct settings_input *in, const char *text,
			void *owner, struct rs_error *err)
{
	const struct cli_option *row = in->row;
	const struct number_kind *k = kind_of(row);
	uint64_t v = 0;
	bool read = text && k->read(text, &v);
	if (read && v >= settings_row_min(row, in->from) && v <= row->max) {
		k->store(row, settings_row_field(row, owner), v);
		return 0;
	}
	char range[96], like[64] = "", not_one[sizeof(err->msg)] = "";
	range_say(in, k, range, sizeof(range));
	if (row->like)
		snprintf(like, sizeof(like), ", like %s", row->like);
	if (!read)
		snprintf(not_one, sizeof(not_one), "; '%s' is not a %s",
			 text ? text : "", k->word);
	return settings_value_bad(in, text ? text : "", err, " must be %s%s%s",
				  range, like, not_one);
}

static void number_default(const struct cli_option *row, void *owner)
{
	kind_of(row)->store(row, settings_row_field(row, owner), row->def);
}

static bool number_equal(const struct cli_option *row, const void *a,
			 const void *b)
{
	const struct number_kind *k = kind_of(row);
	return k->load(row, (const char *)a + row->offset) ==
	       k->load(row, (const char *)b + row->offset);
}

/* A default outside the range means "none" (create: the pool must
 * exist), which --help does not say. */
static const char *number_show_default(const struct cli_option *row, char *buf,
				       size_t len)
{
	if (row->def < row->min || row->def > row->max)
		return settings_value_no_default(row, buf, len);
	kind_of(row)->show(row->def, buf, len);
	return buf;
}

const struct settings_value_ops settings_number_ops = {
    number_parse, number_default, number_equal, number_show_default};
