/* The settings whose value is written as words: yes or no, the listen
 * address, paths (a pool, an auth key), address ranges and methods. */
#include "settings/value_ops.h"

#include "cli/endpoint.h"
#include "proto/auth.h"
#include "proto/method.h"
#include "settings/cidr.h"
#include "settings/line.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Zeroes: no address, no path, no key, no range. */
static void span_clear(const struct cli_option *row, void *owner)
{
	memset(settings_row_field(row, owner), 0, row->size);
}

static const void *field_of(const struct cli_option *row, const void *owner)
{
	return (const char *)owner + row->offset;
}

/* ---- yes or no ---- */

/* The way rsyncd.conf takes them; a flag without argument says yes. */
static int bool_parse(const struct settings_input *in, const char *text,
		      void *owner, struct rs_error *err)
{
	static const char *const yes[] = {"yes", "true", "1"};
	static const char *const no[] = {"no", "false", "0"};
	bool *field = settings_row_field(in->row, owner);
	if (!text) {
		*field = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		if (!strcasecmp(text, yes[i]) || !strcasecmp(text, no[i])) {
			*field = !strcasecmp(text, yes[i]);
			return 0;
		}
	}
	return settings_value_bad(in, text, err,
				  " must be yes or no (or true, false, 1, 0)");
}

static void bool_default(const struct cli_option *row, void *owner)
{
	*(bool *)settings_row_field(row, owner) = row->def != 0;
}

static bool bool_equal(const struct cli_option *row, const void *a,
		       const void *b)
{
	return *(const bool *)field_of(row, a) ==
	       *(const bool *)field_of(row, b);
}

const struct settings_value_ops settings_bool_ops = {
    bool_parse, bool_default, bool_equal, settings_value_no_default};

/* ---- the listen address ---- */

static int address_bad(const struct settings_input *in, const char *text,
		       const char *why, struct rs_error *err)
{
	return settings_value_bad(in, text, err,
				  ": %s; write an address like 192.0.2.1 or "
				  "[2001:db8::1]",
				  why);
}

/* In the file the address alone: the port is a key of its own, so that
 * reading one never resets the other. A bare IPv6 address needs no
 * brackets there. A flag takes ADDR[:PORT], the port defaulting. */
static int address_parse(const struct settings_input *in, const char *text,
			 void *owner, struct rs_error *err)
{
	struct rs_endpoint *listen = settings_row_field(in->row, owner), ep;
	struct rs_error why = {0};
	if (in->from == SETTINGS_FROM_FLAG) {
		if (rs_endpoint_parse(text, &ep, &why))
			return address_bad(in, text, why.msg, err);
		*listen = ep;
		return 0;
	}
	char bracketed[sizeof(ep.host) + 2];
	bool bare_ipv6 = text[0] != '[' && strchr(text, ':') &&
			 strchr(text, ':') != strrchr(text, ':');
	if (snprintf(bracketed, sizeof(bracketed), bare_ipv6 ? "[%s]" : "%s",
		     text) >= (int)sizeof(bracketed))
		return settings_value_bad_name(in, err, " address too long");
	if (rs_endpoint_parse(bracketed, &ep, &why) || !ep.host[0])
		return address_bad(in, text,
				   why.msg[0] ? why.msg : "no address", err);
	const char *end = strrchr(bracketed, ']');
	if (end ? end[1] != '\0' : strchr(bracketed, ':') != 0)
		return settings_value_bad(in, text, err,
					  " holds a port: give the address "
					  "alone and the port as `port = %s`",
					  ep.port);
	strcpy(listen->host, ep.host);
	return 0;
}

/* The host only: the port is the port row's. */
static void address_default(const struct cli_option *row, void *owner)
{
	((struct rs_endpoint *)settings_row_field(row, owner))->host[0] = '\0';
}

static bool address_equal(const struct cli_option *row, const void *a,
			  const void *b)
{
	const struct rs_endpoint *x = field_of(row, a), *y = field_of(row, b);
	return !strcmp(x->host, y->host) && !strcmp(x->port, y->port);
}

static const char *address_show_default(const struct cli_option *row, char *buf,
					size_t len)
{
	(void)row;
	snprintf(buf, len, "all addresses, port %s", RS_DEFAULT_PORT);
	return buf;
}

const struct settings_value_ops settings_address_ops = {
    address_parse, address_default, address_equal, address_show_default};

/* ---- paths ---- */

/* Absolute in the file: the service's working directory is not the
 * file's. On the command line relative to where it is given. */
static int path_parse(const struct settings_input *in, const char *text,
		      void *owner, struct rs_error *err)
{
	char *path = settings_row_field(in->row, owner);
	if (in->from == SETTINGS_FROM_FILE && text[0] != '/')
		return settings_value_bad(in, text, err,
					  " must be an absolute path");
	if (strlen(text) >= PATH_MAX)
		return settings_value_bad_name(
		    in, err, " is longer than %d bytes", PATH_MAX - 1);
	strcpy(path, text);
	return 0;
}

static bool path_equal(const struct cli_option *row, const void *a,
		       const void *b)
{
	return !strcmp(field_of(row, a), field_of(row, b));
}

const struct settings_value_ops settings_path_ops = {
    path_parse, span_clear, path_equal, settings_value_no_default};

/* The key is loaded as the file is read, so that one that cannot be used
 * is reported with the line that names it. A flag's is loaded after the
 * options (main.c), so that its error is one line without argp's hint. */
static int key_file_parse(const struct settings_input *in, const char *text,
			  void *owner, struct rs_error *err)
{
	struct recv_log_settings *log = owner;
	int rc = path_parse(in, text, owner, err);
	if (!rc && in->from != SETTINGS_FROM_FLAG)
		rc = rs_auth_key_load(log->auth_key_path, &log->auth_key, err);
	return rc;
}

static bool key_file_equal(const struct cli_option *row, const void *a,
			   const void *b)
{
	(void)row;
	const struct recv_log_settings *x = a, *y = b;
	return !strcmp(x->auth_key_path, y->auth_key_path) &&
	       x->auth_key.len == y->auth_key.len &&
	       !memcmp(x->auth_key.bytes, y->auth_key.bytes, x->auth_key.len);
}

const struct settings_value_ops settings_key_file_ops = {
    key_file_parse, span_clear, key_file_equal, settings_value_no_default};

/* ---- lists ---- */

/* Calls item on each item of text (commas and/or white space between),
 * cut from a copy, until one fails. */
static int list_each(const struct settings_input *in, const char *text,
		     void *owner, struct rs_error *err,
		     int (*item)(const struct settings_input *in,
				 const char *text, void *owner,
				 struct rs_error *err))
{
	char *copy = strdup(text), *cursor = copy;
	if (!copy)
		return rs_error_set(err, RS_E_NOMEM, 0, "out of memory");
	int rc = 0;
	for (char *one; !rc && (one = settings_list_next(&cursor));)
		rc = item(in, one, owner, err);
	free(copy);
	return rc;
}

static int cidr_add(const struct settings_input *in, const char *text,
		    void *owner, struct rs_error *err)
{
	struct recv_log_settings *log = owner;
	if (log->nallow == RECV_ALLOW_MAX) {
		char who[RS_LOG_NAME_MAX + 16] = "--allow: the command line";
		if (in->from != SETTINGS_FROM_FLAG)
			snprintf(who, sizeof(who), "log '%s'", in->log_name);
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s has more than %d allow ranges: merge "
				    "some into wider ones",
				    who, RECV_ALLOW_MAX);
	}
	struct rs_error why = {0};
	if (recv_cidr_parse(text, &log->allow[log->nallow], &why))
		return settings_value_bad(in, text, err,
					  ": %s; write a range like "
					  "192.0.2.0/24 or 2001:db8::/32, or "
					  "one address",
					  why.msg);
	log->nallow++;
	return 0;
}

static int cidr_list_parse(const struct settings_input *in, const char *text,
			   void *owner, struct rs_error *err)
{
	return list_each(in, text, owner, err, cidr_add);
}

static bool cidr_list_equal(const struct cli_option *row, const void *a,
			    const void *b)
{
	(void)row;
	const struct recv_log_settings *x = a, *y = b;
	return x->nallow == y->nallow &&
	       !memcmp(x->allow, y->allow, x->nallow * sizeof(*x->allow));
}

const struct settings_value_ops settings_cidr_list_ops = {
    cidr_list_parse, span_clear, cidr_list_equal, settings_value_no_default};

/* owner: the methods being gathered (a uint8_t), not the log. */
static int method_add(const struct settings_input *in, const char *text,
		      void *owner, struct rs_error *err)
{
	enum rs_method m;
	if (rs_method_parse(text, &m, 0) || m == RS_METHOD_AUTO)
		return settings_value_bad_name(
		    in, err,
		    ": '%s' is not a method; list "
		    "some of apm, gpspm, staged and flush",
		    text);
	*(uint8_t *)owner |= (uint8_t)RS_METHOD_BIT(m);
	return 0;
}

/* The list replaces the default (every method); an empty one is none. */
static int method_list_parse(const struct settings_input *in, const char *text,
			     void *owner, struct rs_error *err)
{
	uint8_t methods = 0;
	int rc = list_each(in, text, &methods, err, method_add);
	if (!rc && !methods)
		rc = settings_value_bad_name(in, err,
					     ": list some of apm, "
					     "gpspm, staged and flush");
	if (!rc)
		*(uint8_t *)settings_row_field(in->row, owner) = methods;
	return rc;
}

static void method_list_default(const struct cli_option *row, void *owner)
{
	*(uint8_t *)settings_row_field(row, owner) = (uint8_t)row->def;
}

static bool method_list_equal(const struct cli_option *row, const void *a,
			      const void *b)
{
	return *(const uint8_t *)field_of(row, a) ==
	       *(const uint8_t *)field_of(row, b);
}

const struct settings_value_ops settings_method_list_ops = {
    method_list_parse, method_list_default, method_list_equal,
    settings_value_no_default};
