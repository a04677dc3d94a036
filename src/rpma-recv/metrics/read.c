/* recv_metrics_find (metrics/metrics.h): a served log's figures read back
 * from the metrics file, for --info. Reads only the lines metrics/metrics.c
 * writes. */
#include "metrics/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The label text that names pool: ,pool="ESCAPED" */
static void pool_needle(const char *pool, char *out, size_t len)
{
	size_t n = (size_t)snprintf(out, len, ",pool=\"");
	for (; *pool && n + 3 < len; pool++) {
		if (*pool == '\\' || *pool == '"')
			out[n++] = '\\';
		out[n++] = *pool == '\n' ? 'n' : *pool;
	}
	if (n + 2 <= len) {
		out[n++] = '"';
		out[n] = '\0';
	}
}

/* The value of label key="..." in line (no escapes in names), or "". */
static void label(const char *line, const char *key, char *out, size_t len)
{
	char pat[32];
	snprintf(pat, sizeof(pat), "%s=\"", key);
	const char *at = strstr(line, pat);
	out[0] = '\0';
	if (!at)
		return;
	at += strlen(pat);
	const char *end = strchr(at, '"');
	if (end)
		snprintf(out, len, "%.*s", (int)(end - at), at);
}

static int refusal_of(const char *name)
{
	for (int r = 0; r < RECV_REFUSALS; r++)
		if (!strcmp(recv_refusal_name((enum recv_refusal)r), name))
			return r;
	return -1;
}

/* One series line of the log: its number into out. */
static void take(const char *line, struct recv_metrics_found *out)
{
	const char *sp = strrchr(line, ' ');
	uint64_t v = sp ? strtoull(sp + 1, 0, 10) : 0;
	char reason[32];
	label(line, "log", out->name, sizeof(out->name));
	if (!strncmp(line, "rpma_recv_committed_bytes_total{", 32))
		out->counts.committed_bytes = v;
	else if (!strncmp(line, "rpma_recv_commits_total{", 24))
		out->counts.commits = v;
	else if (!strncmp(line, "rpma_recv_offsets_put_back_total{", 33))
		out->counts.offsets_put_back = v;
	else if (!strncmp(line, "rpma_recv_senders{", 18))
		out->counts.senders = (unsigned)v;
	else if (!strncmp(line, "rpma_recv_log_rotated_bytes{", 28))
		out->rotated_bytes = v;
	else if (!strncmp(line, "rpma_recv_archive_bytes{", 24))
		out->archive_bytes = v;
	else if (!strncmp(line, "rpma_recv_archive_files{", 24))
		out->archive_files = v;
	else if (!strncmp(line, "rpma_recv_persist_seconds_sum{", 30))
		out->counts.persist_ns =
		    (uint64_t)(strtod(sp ? sp + 1 : "0", 0) * 1e9);
	else if (!strncmp(line, "rpma_recv_refused_total{", 24)) {
		label(line, "reason", reason, sizeof(reason));
		int r = refusal_of(reason);
		if (r >= 0)
			out->counts.refused[r] = v;
	}
}

/* A line of the receiver's own figures (no labels): its number into r. */
static void take_receiver(const char *line, struct recv_metrics_receiver *r)
{
	const struct {
		const char *name;
		unsigned *count;
		uint64_t *bytes;
	} rows[] = {
	    {"rpma_recv_senders_connected ", &r->senders, 0},
	    {"rpma_recv_worker_threads ", &r->workers, 0},
	    {"rpma_recv_threads ", &r->threads, 0},
	    {"rpma_recv_resident_bytes ", 0, &r->resident_bytes},
	    {"rpma_recv_pinned_bytes ", 0, &r->pinned_bytes},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		size_t n = strlen(rows[i].name);
		if (strncmp(line, rows[i].name, n))
			continue;
		uint64_t v = strtoull(line + n, 0, 10);
		if (rows[i].count)
			*rows[i].count = (unsigned)v;
		else
			*rows[i].bytes = v;
	}
}

int recv_metrics_find(const char *path, const char *pool,
		      struct recv_metrics_found *out, struct rs_error *err)
{
	/* --info only looks: a FIFO or a device here is not waited on. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		return rs_error_set(err, RS_E_IO, 0, "%s is not a regular file",
				    path);
	}
	FILE *f = fd < 0 ? 0 : fdopen(fd, "r");
	if (!f) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return rs_error_set(err, RS_E_IO, e, "cannot read %s: %s", path,
				    strerror(e));
	}
	memset(out, 0, sizeof(*out));
	char needle[4200], *line = 0;
	size_t cap = 0;
	bool found = false;
	pool_needle(pool, needle, sizeof(needle));
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, "rpma_recv_info{pid=\"", 20))
			out->pid = strtol(line + 20, 0, 10);
		else if (!strncmp(line, "rpma_recv_metrics_written_seconds ",
				  34))
			out->written = strtod(line + 34, 0);
		take_receiver(line, &out->receiver);
		const char *at = strstr(line, needle);
		if (line[0] == '#' || !at ||
		    (at[strlen(needle)] != ',' && at[strlen(needle)] != '}'))
			continue;
		found = true;
		take(line, out);
	}
	free(line);
	fclose(f);
	if (!found)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s lists no log served from %s", path,
				    pool);
	return 0;
}
