#include "cli/endpoint.h"

#include "error.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What a user who typed a bad name needs to know to type a good one: the
 * rule of rs_log_name_valid(). */
#define NAME_RULE                                                              \
	"a log name is 1 to 31 letters, digits, '.', '_' or '-', not "         \
	"starting with '.' or '-'"

_Static_assert(RS_TARGET_LABEL_SIZE >=
		   sizeof(((struct rs_endpoint *)0)->host) + 2 /* [] */ + 1 +
		       sizeof(((struct rs_endpoint *)0)->port) + 1 +
		       RS_LOG_NAME_MAX + 1,
	       "RS_TARGET_LABEL_SIZE holds [HOST]:PORT/NAME");

/* Digits only, 1 to 65535: strtol would also take a sign or blanks. */
static const char *port_get(const char *text, size_t len,
			    struct rs_endpoint *ep)
{
	static const char *const bad = "port must be a number from 1 to 65535";
	if (len == 0 || len >= sizeof(ep->port))
		return bad;
	long port = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)text[i]))
			return bad;
		port = port * 10 + (text[i] - '0');
	}
	if (port < 1 || port > 65535)
		return bad;
	memcpy(ep->port, text, len);
	ep->port[len] = '\0';
	return 0;
}

/* Splits [ADDR]:PORT, HOST:PORT or HOST into *host and *port (port NULL
 * when absent). What is wrong, or NULL. */
static const char *host_port_split(const char *text, size_t len,
				   const char **host, size_t *host_len,
				   const char **port, size_t *port_len)
{
	const char *end = text + len;
	*host = text;
	*port = 0;
	*port_len = 0;
	if (text[0] == '[') {
		const char *close = memchr(text, ']', len);
		if (!close)
			return "missing ']' after IPv6 address";
		*host = text + 1;
		*host_len = (size_t)(close - *host);
		if (close + 1 < end && close[1] == ':')
			*port = close + 2;
		else if (close + 1 != end)
			return "unexpected text after ']'";
	} else {
		const char *colon = memchr(text, ':', len);
		if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1)))
			return "write an IPv6 address as [ADDR]:PORT";
		*host_len = colon ? (size_t)(colon - text) : len;
		if (colon)
			*port = colon + 1;
	}
	if (*port)
		*port_len = (size_t)(end - *port);
	return 0;
}

/* The endpoint in text[0, len), which holds no NUL. */
static const char *endpoint_get(const char *text, size_t len,
				struct rs_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	strcpy(ep->port, RS_DEFAULT_PORT);
	if (len == 0)
		return "empty address";
	const char *host, *port;
	size_t host_len, port_len;
	const char *why =
	    host_port_split(text, len, &host, &host_len, &port, &port_len);
	if (why)
		return why;
	if (host_len >= sizeof(ep->host))
		return "host name too long";
	memcpy(ep->host, host, host_len);
	ep->host[host_len] = '\0';
	return port ? port_get(port, port_len, ep) : 0;
}

int rs_endpoint_parse(const char *text, struct rs_endpoint *ep,
		      struct rs_error *err)
{
	size_t len = text ? strlen(text) : 0;
	const char *why = endpoint_get(text, len, ep);
	/* No host name or address has a '/': it can only be a log name,
	 * which an address to listen on or to dial does not take. */
	if (len && memchr(text, '/', len)) {
		memset(ep, 0, sizeof(*ep));
		why = "unexpected '/': give ADDR[:PORT], without a log name";
	}
	return why ? rs_error_set(err, RS_E_INVAL, 0, "%s", why) : 0;
}

/* Which part of the rule a name of at most RS_LOG_NAME_MAX characters that
 * rs_log_name_valid() refused breaks. */
static int name_error(const char *name, struct rs_error *err)
{
	for (const char *p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;
		bool ok = (c < 0x80 && isalnum(c)) || c == '.' || c == '_' ||
			  c == '-';
		if (ok)
			continue;
		/* Quote a printable character; show any other as a byte, so
		 * the message stays one line of plain text. */
		if (c < 0x80 && isprint(c))
			return rs_error_set(
			    err, RS_E_INVAL, 0,
			    "log name contains '%c'; " NAME_RULE, c);
		return rs_error_set(err, RS_E_INVAL, 0,
				    "log name contains byte 0x%02x; " NAME_RULE,
				    c);
	}
	if (name[0] == '.' || name[0] == '-')
		return rs_error_set(err, RS_E_INVAL, 0,
				    "log name starts with '%c'; " NAME_RULE,
				    name[0]);
	return rs_error_set(err, RS_E_INVAL, 0, "bad log name; " NAME_RULE);
}

/* The NAME after '/', in text[0, len) which holds no NUL, into t->name
 * (the caller empties t on failure). */
static int name_get(const char *text, size_t len, struct rs_target *t,
		    struct rs_error *err)
{
	if (len == 0)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "missing log name after '/'; " NAME_RULE);
	if (len > RS_LOG_NAME_MAX)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "log name of %zu characters; " NAME_RULE,
				    len);
	memcpy(t->name, text, len);
	t->name[len] = '\0';
	/* The receiver decodes names with the same rule: one source. */
	return rs_log_name_valid(t->name) ? 0 : name_error(t->name, err);
}

int rs_target_parse_span(const char *text, size_t len, struct rs_target *t,
			 struct rs_error *err)
{
	memset(t, 0, sizeof(*t));
	len = text ? strnlen(text, len) : 0;
	/* A host has no '/', so the first one starts the name. */
	const char *slash = len ? memchr(text, '/', len) : 0;
	size_t address_len = slash ? (size_t)(slash - text) : len;
	const char *why = endpoint_get(text, address_len, &t->endpoint);
	/* The sender dials the target: "any address" means nothing here. */
	if (address_len == 0 || (!why && !t->endpoint.host[0]))
		why = "missing host";
	if (why) {
		memset(t, 0, sizeof(*t));
		return rs_error_set(err, RS_E_INVAL, 0, "%s", why);
	}
	if (!slash)
		return 0;
	int rc = name_get(slash + 1, len - address_len - 1, t, err);
	if (rc)
		memset(t, 0, sizeof(*t));
	return rc;
}

int rs_target_parse(const char *text, struct rs_target *t, struct rs_error *err)
{
	return rs_target_parse_span(text, text ? strlen(text) : 0, t, err);
}

/* HOST:PORT[/NAME] ([ADDR]:PORT[/NAME] for IPv6): every part spelled out,
 * so that two replicas told apart by port alone read differently. */
static const char *target_full(const struct rs_target *t, char *buf,
			       size_t size)
{
	const struct rs_endpoint *ep = &t->endpoint;
	const char *slash = t->name[0] ? "/" : "";
	if (strchr(ep->host, ':') || ep->host[0] == '[')
		snprintf(buf, size, "[%s]:%s%s%s", ep->host, ep->port, slash,
			 t->name);
	else
		snprintf(buf, size, "%s:%s%s%s", ep->host, ep->port, slash,
			 t->name);
	return buf;
}

const char *rs_target_label(const struct rs_target *t, char *buf, size_t size)
{
	if (t->name[0] || strcmp(t->endpoint.port, RS_DEFAULT_PORT) != 0)
		return target_full(t, buf, size);
	snprintf(buf, size, "%s", t->endpoint.host);
	return buf;
}

/* The length of the list item at text: up to the first comma outside
 * [ ] (an IPv6 address), or the end. */
static size_t item_len(const char *text)
{
	bool bracket = false;
	size_t i = 0;
	for (; text[i] && (bracket || text[i] != ','); i++) {
		if (text[i] == '[')
			bracket = true;
		else if (text[i] == ']')
			bracket = false;
	}
	return i;
}

static unsigned item_count(const char *text)
{
	unsigned count = 1;
	for (const char *p = text + item_len(text); *p;
	     p += 1 + item_len(p + 1))
		count++;
	return count;
}

/* Longest item a message quotes whole; room for it, "..." and the NUL. */
#define QUOTE_MAX 40
#define QUOTE_SIZE (QUOTE_MAX + 4)

/* The item as a message quotes it: printable bytes as they are, others as
 * \xNN so the message stays one line, cut with "..." when long. */
static const char *item_quote(const char *text, size_t len,
			      char buf[QUOTE_SIZE])
{
	size_t o = 0, i = 0;
	for (; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		bool plain = c < 0x80 && isprint(c);
		if (o + (plain ? 1 : 4) > QUOTE_MAX)
			break;
		if (plain)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, 5, "\\x%02x", c);
	}
	strcpy(buf + o, i < len ? "..." : "");
	return buf;
}

/* One replica, whatever the spelling: a host name or an IPv6 address in
 * either case, a port with or without leading zeros or left default. */
static bool target_same(const struct rs_target *a, const struct rs_target *b)
{
	return !strcasecmp(a->endpoint.host, b->endpoint.host) &&
	       strtoul(a->endpoint.port, 0, 10) ==
		   strtoul(b->endpoint.port, 0, 10) &&
	       !strcmp(a->name, b->name);
}

/* Item i of count, text[0, len), into out[i], unless it repeats one of
 * out[0, i). */
static int item_parse(const char *text, size_t len, unsigned i, unsigned count,
		      struct rs_target *out, struct rs_error *err)
{
	if (len == 0) {
		const char *where = i == 0	     ? "a ',' at the start"
				    : i + 1 == count ? "a ',' at the end"
						     : "two ',' in a row";
		return rs_error_set(err, RS_E_INVAL, 0,
				    "replica %u of %u is empty (%s)", i + 1,
				    count, where);
	}
	struct rs_error why = {0};
	char quote[QUOTE_SIZE];
	if (rs_target_parse_span(text, len, &out[i], &why))
		return rs_error_set(err, RS_E_INVAL, 0,
				    "replica %u of %u ('%s'): %s", i + 1, count,
				    item_quote(text, len, quote), why.msg);
	for (unsigned j = 0; j < i; j++) {
		char label[RS_TARGET_LABEL_SIZE];
		if (target_same(&out[i], &out[j]))
			return rs_error_set(
			    err, RS_E_INVAL, 0,
			    "replica %u is the same as replica %u (%s)", i + 1,
			    j + 1, target_full(&out[j], label, sizeof(label)));
	}
	return 0;
}

int rs_target_list_parse(const char *text, struct rs_target *out, unsigned max,
			 unsigned *n, struct rs_error *err)
{
	*n = 0;
	memset(out, 0, max * sizeof(*out));
	unsigned count = text ? item_count(text) : 1;
	if (count > max)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%u replicas listed: at most %u replicas",
				    count, max);
	/* One target: exactly what rs_target_parse says, no "replica 1". */
	if (count == 1) {
		int rc = rs_target_parse(text, out, err);
		*n = rc ? 0 : 1;
		return rc;
	}
	const char *p = text;
	for (unsigned i = 0; i < count; i++) {
		size_t len = item_len(p);
		int rc = item_parse(p, len, i, count, out, err);
		if (rc) {
			memset(out, 0, max * sizeof(*out));
			return rc;
		}
		p += len + 1;
	}
	*n = count;
	return 0;
}
