#include "settings_keys.h"

#include "cli/count.h"
#include "cli/duration.h"
#include "cli/size.h"
#include "proto/method.h"
#include "settings_line.h"

#include <libpmemlog.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct settings_key {
	const char *name;
	bool of_log;	 /* in a [name] section, else before any */
	bool repeatable; /* values accumulate */
	int (*apply)(struct settings_reader *r, char *value);
};

/* yes/no the way rsyncd.conf takes them. */
static bool boolean(const char *text, bool *out)
{
	static const char *const yes[] = {"yes", "true", "1"};
	static const char *const no[] = {"no", "false", "0"};
	for (size_t i = 0; i < sizeof(yes) / sizeof(*yes); i++) {
		if (!strcasecmp(text, yes[i]) || !strcasecmp(text, no[i])) {
			*out = !strcasecmp(text, yes[i]);
			return true;
		}
	}
	return false;
}

static int absolute_path(struct settings_reader *r, const char *key,
			 const char *value, char *dest)
{
	if (value[0] != '/')
		return settings_fail(r, "%s '%s' must be an absolute path", key,
				     value);
	if (strlen(value) >= PATH_MAX)
		return settings_fail(r, "%s is longer than %d bytes", key,
				     PATH_MAX - 1);
	strcpy(dest, value);
	return 0;
}

/* The address alone: the port is a key of its own, so that reading one
 * never resets the other. A bare IPv6 address needs no brackets here. */
static int key_listen(struct settings_reader *r, char *value)
{
	char text[sizeof(r->s.listen.host) + 2];
	bool bare_ipv6 = value[0] != '[' && strchr(value, ':') &&
			 strchr(value, ':') != strrchr(value, ':');
	if (snprintf(text, sizeof(text), bare_ipv6 ? "[%s]" : "%s", value) >=
	    (int)sizeof(text))
		return settings_fail(r, "listen address too long");
	struct rs_endpoint ep;
	struct rs_error why = {0};
	if (rs_endpoint_parse(text, &ep, &why) || !ep.host[0])
		return settings_fail(r,
				     "listen '%s': %s; write an address like "
				     "192.0.2.1 or [2001:db8::1]",
				     value,
				     why.msg[0] ? why.msg : "no address");
	const char *end = strrchr(text, ']');
	if (end ? end[1] != '\0' : strchr(text, ':') != 0)
		return settings_fail(r,
				     "listen '%s' holds a port: give the "
				     "address alone and the port as `port = "
				     "%s`",
				     value, ep.port);
	strcpy(r->s.listen.host, ep.host);
	return 0;
}

static int key_port(struct settings_reader *r, char *value)
{
	uint64_t port;
	if (!rs_count_parse(value, 1, 65535, &port))
		return settings_fail(r,
				     "port '%s' must be a number from 1 to "
				     "65535",
				     value);
	snprintf(r->s.listen.port, sizeof(r->s.listen.port), "%u",
		 (unsigned)port);
	return 0;
}

static int key_credits(struct settings_reader *r, char *value)
{
	uint64_t v;
	if (!rs_count_parse(value, 1, RECV_CREDITS_MAX, &v))
		return settings_fail(r,
				     "credits '%s' must be a number from 1 "
				     "to %d",
				     value, RECV_CREDITS_MAX);
	r->s.credits = (uint16_t)v;
	return 0;
}

static int key_staging_slot(struct settings_reader *r, char *value)
{
	uint64_t v;
	if (rs_size_parse(value, &v) || v < RECV_STAGING_SLOT_MIN ||
	    v > RECV_STAGING_SLOT_MAX)
		return settings_fail(r,
				     "staging-slot '%s' must be a size from "
				     "4K to 1G, like 1M",
				     value);
	r->s.staging_slot = (uint32_t)v;
	return 0;
}

static int key_peer_timeout(struct settings_reader *r, char *value)
{
	uint64_t ms;
	if (rs_duration_parse(value, &ms) || ms < RECV_PEER_TIMEOUT_MIN_MS ||
	    ms > RECV_PEER_TIMEOUT_MAX_MS)
		return settings_fail(r,
				     "peer-timeout '%s' must be 1 s to 1 "
				     "hour, like 10s or 2m",
				     value);
	r->s.peer_timeout_ms = (uint32_t)ms;
	return 0;
}

static int key_max_senders(struct settings_reader *r, char *value)
{
	uint64_t v;
	if (!rs_count_parse(value, 1, RECV_MAX_SENDERS_MAX, &v))
		return settings_fail(r,
				     "max-senders '%s' must be a number from "
				     "1 to %d",
				     value, RECV_MAX_SENDERS_MAX);
	r->s.max_senders = (unsigned)v;
	return 0;
}

static int key_busy_poll(struct settings_reader *r, char *value)
{
	if (!boolean(value, &r->s.busy_poll))
		return settings_fail(r, "busy-poll '%s' must be yes or no",
				     value);
	return 0;
}

static int key_pool(struct settings_reader *r, char *value)
{
	return absolute_path(r, "pool", value, r->log.pool_path);
}

static int key_create(struct settings_reader *r, char *value)
{
	uint64_t v;
	if (rs_size_parse(value, &v) || v < PMEMLOG_MIN_POOL)
		return settings_fail(r,
				     "create '%s' must be a size of at least "
				     "2M (a log pool's minimum), like 1G",
				     value);
	r->log.create_size = v;
	return 0;
}

static int key_allow(struct settings_reader *r, char *value)
{
	struct recv_log_settings *log = &r->log;
	for (char *cidr; (cidr = settings_list_next(&value));) {
		if (log->nallow == RECV_ALLOW_MAX)
			return settings_fail(r,
					     "log '%s' has more than %d allow "
					     "ranges: merge some into wider "
					     "ones",
					     log->name, RECV_ALLOW_MAX);
		const char *why = rs_cidr_parse(cidr, &log->allow[log->nallow]);
		if (why)
			return settings_fail(r,
					     "allow '%s': %s; write a range "
					     "like 192.0.2.0/24 or "
					     "2001:db8::/32, or one address",
					     cidr, why);
		log->nallow++;
	}
	return 0;
}

/* Loaded now, so that a key file that cannot be used is reported with the
 * line that names it. */
static int key_auth_key(struct settings_reader *r, char *value)
{
	struct recv_log_settings *log = &r->log;
	int rc = absolute_path(r, "auth-key", value, log->auth_key_path);
	if (rc)
		return rc;
	rc = rs_auth_key_load(log->auth_key_path, &log->auth_key, r->err);
	if (rc)
		rs_error_wrap(r->err, "%s:%u", r->s.path, r->line);
	return rc;
}

static int key_methods(struct settings_reader *r, char *value)
{
	uint8_t methods = 0;
	for (char *name; (name = settings_list_next(&value));) {
		enum rs_method m;
		struct rs_error why = {0};
		if (rs_method_parse(name, &m, &why) || m == RS_METHOD_AUTO)
			return settings_fail(r,
					     "methods: '%s' is not a method; "
					     "list some of apm, gpspm and "
					     "staged",
					     name);
		methods |= (uint8_t)RS_METHOD_BIT(m);
	}
	if (!methods)
		return settings_fail(r, "methods: list some of apm, gpspm and "
					"staged");
	r->log.methods = methods;
	return 0;
}

static int key_direct_write(struct settings_reader *r, char *value)
{
	if (!boolean(value, &r->log.direct_write_to_pmem))
		return settings_fail(r,
				     "direct-write-to-pmem '%s' must be yes "
				     "or no",
				     value);
	return 0;
}

static const struct settings_key keys[SETTINGS_KEY_COUNT] = {
    {"listen", false, false, key_listen},
    {"port", false, false, key_port},
    {"credits", false, false, key_credits},
    {"staging-slot", false, false, key_staging_slot},
    {"peer-timeout", false, false, key_peer_timeout},
    {"max-senders", false, false, key_max_senders},
    {"busy-poll", false, false, key_busy_poll},
    {"pool", true, false, key_pool},
    {"create", true, false, key_create},
    {"allow", true, true, key_allow},
    {"auth-key", true, false, key_auth_key},
    {"methods", true, false, key_methods},
    {"direct-write-to-pmem", true, false, key_direct_write},
};

void settings_log_defaults(struct recv_log_settings *log)
{
	memset(log, 0, sizeof(*log));
	log->methods = RS_METHOD_ALL;
}

static const struct settings_key *key_find(const char *name)
{
	for (size_t i = 0; i < SETTINGS_KEY_COUNT; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return 0;
}

/* "unknown key", with the keys that would fit there. */
static int key_unknown(struct settings_reader *r, const char *key)
{
	char names[256] = "";
	for (size_t i = 0; i < SETTINGS_KEY_COUNT; i++) {
		if (keys[i].of_log != r->in_log)
			continue;
		size_t used = strlen(names);
		snprintf(names + used, sizeof(names) - used, "%s%s",
			 used ? ", " : "", keys[i].name);
	}
	return settings_fail(r, "unknown key '%s' (%s: %s)", key,
			     r->in_log ? "keys of a log" : "global keys",
			     names);
}

static int key_misplaced(struct settings_reader *r, const char *key)
{
	if (r->in_log)
		return settings_fail(r,
				     "'%s' is a global setting: move it "
				     "above the first section (line %u)",
				     key, r->first_section);
	return settings_fail(r,
			     "'%s' is a setting of a log: put it in the "
			     "log's section, after its `[name]` line",
			     key);
}

int settings_key_apply(struct settings_reader *r, const char *key, char *value)
{
	const struct settings_key *k = key_find(key);
	if (!k)
		return key_unknown(r, key);
	if (k->of_log != r->in_log)
		return key_misplaced(r, key);
	unsigned *set_on = &r->key_line[k - keys];
	if (*set_on && !k->repeatable)
		return settings_fail(r,
				     "'%s' is given twice (also on line %u): "
				     "keep one",
				     key, *set_on);
	int rc = k->apply(r, value);
	if (!rc && !*set_on)
		*set_on = r->line;
	return rc;
}

void settings_keys_forget_log(struct settings_reader *r)
{
	for (size_t i = 0; i < SETTINGS_KEY_COUNT; i++)
		if (keys[i].of_log)
			r->key_line[i] = 0;
}

unsigned settings_key_line(const struct settings_reader *r, const char *key)
{
	const struct settings_key *k = key_find(key);
	return k ? r->key_line[k - keys] : 0;
}
