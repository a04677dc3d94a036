#include "settings/cidr.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

int recv_cidr_parse(const char *text, struct recv_cidr *c, struct rs_error *err)
{
	char host[64];
	const char *slash = strchr(text, '/');
	size_t len = slash ? (size_t)(slash - text) : strlen(text);
	if (len == 0 || len >= sizeof(host))
		return rs_error_set(
		    err, RS_E_INVAL, 0,
		    "expected an address like 192.0.2.0/24 or fe80::/10");
	memcpy(host, text, len);
	host[len] = '\0';
	memset(c, 0, sizeof(*c));
	unsigned max;
	if (inet_pton(AF_INET, host, c->addr) == 1) {
		c->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, host, c->addr) == 1) {
		c->family = AF_INET6;
		max = 128;
	} else {
		return rs_error_set(err, RS_E_INVAL, 0,
				    "not an IPv4 or IPv6 address");
	}
	c->prefix = max;
	if (slash) {
		const char *p = slash + 1;
		char *end;
		if (!isdigit((unsigned char)*p))
			return rs_error_set(
			    err, RS_E_INVAL, 0,
			    "the prefix length after '/' must be a number");
		unsigned long v = strtoul(p, &end, 10);
		if (*end != '\0' || v > max)
			return rs_error_set(err, RS_E_INVAL, 0,
					    "prefix length out of range");
		c->prefix = (unsigned)v;
	}
	return 0;
}

static bool prefix_equal(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;
	if (memcmp(a, b, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xffu << (8 - rest));
	return (a[whole] & mask) == (b[whole] & mask);
}

bool recv_cidr_match(const struct recv_cidr *c, const struct sockaddr *sa)
{
	const uint8_t *peer;
	int family = sa->sa_family;
	if (family == AF_INET) {
		peer = (const uint8_t *)&(
			   (const struct sockaddr_in *)(const void *)sa)
			   ->sin_addr;
	} else if (family == AF_INET6) {
		peer = ((const struct sockaddr_in6 *)(const void *)sa)
			   ->sin6_addr.s6_addr;
		static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0,	0,
						      0, 0, 0, 0, 0xff, 0xff};
		if (c->family == AF_INET && memcmp(peer, v4_mapped, 12) == 0) {
			peer += 12;
			family = AF_INET;
		}
	} else {
		return false;
	}
	return family == c->family && prefix_equal(peer, c->addr, c->prefix);
}
