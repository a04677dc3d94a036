#include "cli/endpoint.h"

#include "error.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *port_parse(const char *text, struct rs_endpoint *ep)
{
	char *end;
	long port = strtol(text, &end, 10);
	/* Digits only: strtol would also take a sign or leading blanks. */
	if (!isdigit((unsigned char)*text) || *end != '\0' || port < 1 ||
	    port > 65535)
		return "port must be a number from 1 to 65535";
	strcpy(ep->port, text);
	return 0;
}

/* What is wrong with text, or NULL. */
static const char *endpoint_get(const char *text, struct rs_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	strcpy(ep->port, RS_DEFAULT_PORT);
	if (!text || !*text)
		return "empty address";

	const char *host = text;
	size_t host_len;
	const char *port = 0;
	if (text[0] == '[') {
		const char *close = strchr(text, ']');
		if (!close)
			return "missing ']' after IPv6 address";
		host = text + 1;
		host_len = (size_t)(close - host);
		if (close[1] == ':')
			port = close + 2;
		else if (close[1] != '\0')
			return "unexpected text after ']'";
	} else {
		const char *colon = strchr(text, ':');
		if (colon && strchr(colon + 1, ':'))
			return "write an IPv6 address as [ADDR]:PORT";
		host_len = colon ? (size_t)(colon - text) : strlen(text);
		if (colon)
			port = colon + 1;
	}
	if (host_len >= sizeof(ep->host))
		return "host name too long";
	memcpy(ep->host, host, host_len);
	ep->host[host_len] = '\0';
	if (port) {
		if (strlen(port) >= sizeof(ep->port))
			return "port must be a number from 1 to 65535";
		return port_parse(port, ep);
	}
	return 0;
}

int rs_endpoint_parse(const char *text, struct rs_endpoint *ep,
		      struct rs_error *err)
{
	const char *why = endpoint_get(text, ep);
	return why ? rs_error_set(err, RS_E_INVAL, 0, "%s", why) : 0;
}
