/* A table's rows found by argp key and by name. */
#include "cli/option.h"

#include <string.h>

int cli_option_key(const struct cli_option_table *t,
		   const struct cli_option *row)
{
	return row->short_flag ? row->short_flag
			       : t->key_base + (int)(row - t->rows);
}

const struct cli_option *cli_option_by_key(const struct cli_option_table *t,
					   int key)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!t->rows[i].file_only &&
		    cli_option_key(t, &t->rows[i]) == key)
			return &t->rows[i];
	return 0;
}

const struct cli_option *cli_option_find(const struct cli_option_table *t,
					 const char *name)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].name, name))
			return &t->rows[i];
	return 0;
}
